package uploads_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/changes"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/sandbox"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/store/storetest"
	"github.com/sekolah/portal/internal/uploads"
	"github.com/sekolah/portal/internal/uploads/sheettest"
)

// callLog notes when (on the bubble's clock) each call left for the service, and plays a
// service that goes down: after downAfter batch calls have been answered, every call is
// answered 503 (nothing applied) until up is called.
type callLog struct {
	next      http.RoundTripper
	mu        sync.Mutex
	times     []time.Time
	batches   int
	downAfter int // 0: never down
	downAt    time.Time
	isDown    bool
}

func (c *callLog) RoundTrip(req *http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.times = append(c.times, time.Now())
	down := c.isDown
	c.mu.Unlock()
	if down {
		return &http.Response{StatusCode: 503, Header: http.Header{"Content-Type": {"application/json"}}, Request: req,
			Body: io.NopCloser(strings.NewReader(`{"status":"Service Unavailable","status_code":503,"status_desc":"","data":null}`))}, nil
	}
	res, err := c.next.RoundTrip(req)
	if err == nil && req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/batch") {
		c.mu.Lock()
		if c.batches++; c.downAfter > 0 && c.batches == c.downAfter {
			c.isDown, c.downAt = true, time.Now()
		}
		c.mu.Unlock()
	}
	return res, err
}

// downAfterNext makes the service go down once n more batch calls were answered.
func (c *callLog) downAfterNext(n int) {
	c.mu.Lock()
	c.downAfter = c.batches + n
	c.mu.Unlock()
}

// up brings the service back.
func (c *callLog) up() {
	c.mu.Lock()
	c.isDown = false
	c.mu.Unlock()
}

// wentDown is when the service went down (zero while it has not).
func (c *callLog) wentDown() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.downAt
}

// since returns the calls made at or after t and the longest pause between two of them.
func (c *callLog) since(t time.Time) (n int, longest time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	prev := t
	for _, at := range c.times {
		if at.Before(t) {
			continue
		}
		n++
		longest = max(longest, at.Sub(prev))
		prev = at
	}
	return n, longest
}

// waitEnv is a portal's uploads on the bubble's clock: the database, the client, the
// runner in the bubble; the sandbox outside it (its server waits on the network), over
// real HTTP without keep-alive (an idle connection would keep the bubble from sleeping).
type waitEnv struct {
	sb     *sandbox.Server
	client *billing.Client
	db     *store.DB
	calls  *callLog
	r      *uploads.Runner
	sheet  sheettest.Sheet
}

func newWaitEnv(t *testing.T, sb *sandbox.Server, url string, sh sheettest.Sheet, wait time.Duration) *waitEnv {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	calls := &callLog{next: &http.Transport{DisableKeepAlives: true}}
	client, err := billing.New(billing.Config{BaseURL: url, Username: "portal", Password: "issued", Now: sb.Now, Timeout: 5 * time.Second,
		RetryBase: 100 * time.Millisecond, RetryMax: time.Second, Logger: log, HTTPClient: &http.Client{Transport: calls}})
	if err != nil {
		t.Fatal(err)
	}
	db := storetest.OpenTest(t)
	writer := &changes.Writer{Client: client, DB: db, Log: log, Clock: clock.System(time.UTC)}
	var list []billing.Student
	for i, n := range sh.NIS {
		list = append(list, billing.Student{NIS: n, Name: sh.Names[i], Description: "Kelas 7A"})
	}
	if _, err := writer.CreateStudents(context.Background(), auth.SystemActor, list, store.SourcePortal); err != nil {
		t.Fatal(err)
	}
	cfg := uploads.Config{ChunkSize: 20, Concurrency: 2, Accounts: accounts, Clock: clock.System(time.UTC), RetryBase: time.Second, RetryMax: 15 * time.Second,
		Settle: time.Second, WaitFor: wait, WaitMax: 5 * time.Minute, LeaseTTL: time.Minute, LeaseRenew: 10 * time.Second}
	r := uploads.NewRunner(cfg, db, client, writer, log)
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Stop(context.Background()) })
	return &waitEnv{sb: sb, client: client, db: db, calls: calls, r: r, sheet: sh}
}

// sandboxOutside runs the sandbox and its server outside any bubble, with a sheet of rows
// for its students.
func sandboxOutside(t *testing.T) (*sandbox.Server, string, sheettest.Sheet) {
	t.Helper()
	sb, err := sandbox.New(sandbox.Options{Username: "portal", Password: "issued", Accounts: accounts,
		Now: time.Date(2026, 7, 1, 3, 0, 0, 0, time.UTC), HangLimit: 10 * time.Second, Seed: 7,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(sb)
	t.Cleanup(func() { srv.Close(); sb.Close() })
	sh, err := sheettest.Components(filepath.Join(t.TempDir(), "a.xlsx"), sheettest.Options{Rows: 60, Students: 10})
	if err != nil {
		t.Fatal(err)
	}
	return sb, srv.URL, sh
}

func (w *waitEnv) receiveAndCommit(t *testing.T) store.UploadJob {
	t.Helper()
	f, err := os.Open(w.sheet.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec, err := w.r.Receive(context.Background(), financeActor, uploads.Components, "a.xlsx", f)
	if err != nil {
		t.Fatal(err)
	}
	j := wait(t, w.r, rec.Job.ID)
	if j.State != uploads.StateReady || j.RowsNew != 60 {
		t.Fatalf("analysed: %s, %d new", j.State, j.RowsNew)
	}
	return j // the commits below acknowledge what its preview warns of, if anything
}

// components counts the distinct components at the service.
func (w *waitEnv) components(t *testing.T) int {
	t.Helper()
	keys := map[string]bool{}
	for b, err := range w.client.All(context.Background(), billing.Query{}) {
		if err != nil {
			t.Fatal(err)
		}
		keys[b.NIS+"|"+b.Name+"|"+b.Due.Format(time.DateOnly)] = true
	}
	return len(keys)
}

func (w *waitEnv) job(t *testing.T, id string) store.UploadJob {
	t.Helper()
	j, err := w.db.UploadJobByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// TestUploadWaitsForTheService: a service that stops answering mid-upload for hours does
// not end the upload "partial": it waits, trying again at least every five minutes, says
// since when, and goes on by itself as soon as the service answers, every row sent once.
func TestUploadWaitsForTheService(t *testing.T) {
	t.Parallel()
	sb, url, sh := sandboxOutside(t)
	synctest.Test(t, func(t *testing.T) {
		w := newWaitEnv(t, sb, url, sh, 6*time.Hour)
		j := w.receiveAndCommit(t)
		// The service stops answering once the first batch is in.
		w.calls.downAfterNext(1)
		if err := w.r.Commit(context.Background(), j.ID, financeActor, uploads.AckCodes(j)...); err != nil {
			t.Fatal(err)
		}
		time.Sleep(3 * time.Hour)
		down := w.calls.wentDown()
		if down.IsZero() {
			t.Fatal("the service never went down")
		}
		j = w.job(t, j.ID)
		if j.State != uploads.StateSending || j.WaitingSince.IsZero() || j.WaitingSince.Sub(down) > time.Minute || j.WaitingSince.Before(down) {
			t.Fatalf("after 3 hours down: %s, waiting since %v (down at %v)", j.State, j.WaitingSince, down)
		}
		n, longest := w.calls.since(down)
		if longest > 5*time.Minute+5*time.Second || n < 3*60/5 {
			t.Fatalf("%d tries in 3 hours, the longest pause %v; want one at least every 5 minutes", n, longest)
		}

		w.calls.up()
		time.Sleep(5*time.Minute + 5*time.Second)
		j = w.job(t, j.ID)
		if j.State != uploads.StateDone || j.Created != 60 || !j.WaitingSince.IsZero() {
			t.Fatalf("after the service came back: %s, created %d, waiting since %v", j.State, j.Created, j.WaitingSince)
		}
		if got := w.components(t); got != 60 {
			t.Fatalf("%d components at the service, want 60", got)
		}
	})
}

// down takes the service down now.
func (c *callLog) down() {
	c.mu.Lock()
	c.isDown, c.downAt = true, time.Now()
	c.mu.Unlock()
}

// TestUploadWaitHasAnEnd: a job waits Config.WaitFor and no longer: down from its check on,
// it fails then, saying the service did not answer; down mid-way, it ends partial with
// its unsent rows left for Retry, which sends them once the service is back. A Retry while
// it waits makes it try at once instead of at the end of its pause.
func TestUploadWaitHasAnEnd(t *testing.T) {
	t.Parallel()
	t.Run("down from the check", func(t *testing.T) {
		t.Parallel()
		sb, url, sh := sandboxOutside(t)
		synctest.Test(t, func(t *testing.T) {
			w := newWaitEnv(t, sb, url, sh, 2*time.Hour)
			j := w.receiveAndCommit(t)
			w.calls.down()
			if err := w.r.Commit(context.Background(), j.ID, financeActor, uploads.AckCodes(j)...); err != nil {
				t.Fatal(err)
			}
			time.Sleep(30 * time.Minute)
			if j = w.job(t, j.ID); j.State != uploads.StateChecking || j.WaitingSince.IsZero() {
				t.Fatalf("after 30 minutes down: %s, waiting since %v", j.State, j.WaitingSince)
			}
			// Retry while it waits: it tries at once, not at the end of its pause.
			asked := time.Now()
			if err := w.r.Retry(context.Background(), j.ID, financeActor); err != nil {
				t.Fatalf("retry while waiting: %v", err)
			}
			time.Sleep(5 * time.Second)
			if n, _ := w.calls.since(asked); n == 0 {
				t.Fatal("Retry did not make the job try again")
			}
			time.Sleep(2 * time.Hour)
			if j = w.job(t, j.ID); j.State != uploads.StateFailed || j.Problem != "upstream" || !j.WaitingSince.IsZero() {
				t.Fatalf("after waiting 2 hours: %s, problem %q, waiting since %v", j.State, j.Problem, j.WaitingSince)
			}
		})
	})
	t.Run("down mid-way", func(t *testing.T) {
		t.Parallel()
		sb, url, sh := sandboxOutside(t)
		synctest.Test(t, func(t *testing.T) {
			w := newWaitEnv(t, sb, url, sh, 2*time.Hour)
			j := w.receiveAndCommit(t)
			w.calls.downAfterNext(1)
			if err := w.r.Commit(context.Background(), j.ID, financeActor, uploads.AckCodes(j)...); err != nil {
				t.Fatal(err)
			}
			time.Sleep(2*time.Hour + time.Minute)
			o, _ := w.r.Outcome(context.Background(), j.ID)
			if j = w.job(t, j.ID); j.State != uploads.StatePartial || j.Created < 20 || j.Created == 60 || o.Progress.Pending != 60-j.Created ||
				o.UnsentReason != uploads.FailUnavailable || !j.WaitingSince.IsZero() {
				t.Fatalf("after waiting 2 hours: %s, created %d, outcome %+v", j.State, j.Created, o)
			}
			w.calls.up()
			if err := w.r.Retry(context.Background(), j.ID, financeActor); err != nil {
				t.Fatal(err)
			}
			if j = wait(t, w.r, j.ID); j.State != uploads.StateDone || j.Created != 60 || w.components(t) != 60 {
				t.Fatalf("after Retry: %s, created %d", j.State, j.Created)
			}
		})
	})
}
