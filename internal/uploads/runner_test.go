package uploads_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/sandbox"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/uploads"
	"github.com/sekolah/portal/internal/uploads/sheettest"
)

// faulty forwards every call to the sandbox, but for the batch calls that match it may
// lose a successful answer (the call was applied; the portal hears nothing) or answer 503
// itself without forwarding (nothing applied).
type faulty struct {
	next http.RoundTripper
	path string
	mu   sync.Mutex
	lose int // answers still to lose
	fail int // calls still to refuse with 503
	hang int // applied calls still to leave hanging until the caller gives up
	// first runs before the first matching call is forwarded (another person's change
	// landing just before ours).
	first func()
	// delay holds every matching call this long before it is forwarded (a slow service).
	delay time.Duration
	// late, when set, holds the next matching call on its way until its caller gives up,
	// and lets it reach the service this long afterwards.
	late  time.Duration
	calls atomic.Int64
}

func (f *faulty) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodPost || req.URL.Path != f.path {
		return f.next.RoundTrip(req)
	}
	if f.calls.Add(1) == 1 && f.first != nil {
		f.first()
	}
	if f.delay > 0 {
		time.Sleep(f.delay)
	}
	f.mu.Lock()
	late := f.late
	f.late = 0
	f.mu.Unlock()
	if late > 0 {
		body, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		<-req.Context().Done()
		landing := req.Clone(context.WithoutCancel(req.Context()))
		landing.Body = io.NopCloser(bytes.NewReader(body))
		go func() {
			time.Sleep(late)
			if res, err := f.next.RoundTrip(landing); err == nil {
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
			}
		}()
		return nil, req.Context().Err()
	}
	f.mu.Lock()
	fail := f.lose == 0 && f.fail > 0
	if fail {
		f.fail--
	}
	f.mu.Unlock()
	if fail {
		return &http.Response{StatusCode: 503, Header: http.Header{"Content-Type": {"application/json"}}, Request: req,
			Body: io.NopCloser(strings.NewReader(`{"status":"Service Unavailable","status_code":503,"status_desc":"","data":null}`))}, nil
	}
	res, err := f.next.RoundTrip(req)
	if err != nil || res.StatusCode >= 300 {
		return res, err
	}
	f.mu.Lock()
	lose, hang := f.lose > 0, f.lose == 0 && f.hang > 0
	if lose {
		f.lose--
	} else if hang {
		f.hang--
	}
	f.mu.Unlock()
	if hang {
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		<-req.Context().Done()
		return nil, req.Context().Err()
	}
	if lose {
		// Applied at the service; the answer never arrives.
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return nil, errors.New("connection reset by peer")
	}
	return res, nil
}

func faultyEnv(t *testing.T, path string) (*env, *faulty) {
	f := &faulty{path: path}
	e := newEnvWith(t, 2*time.Second, func(next http.RoundTripper) http.RoundTripper { f.next = next; return f })
	return e, f
}

// TestLostAnswerIsReconciled: the service applied a batch but its answer was lost. The
// chunk is not sent again blindly: its rows are found at the service and the chunk is
// confirmed, with nothing created twice.
func TestLostAnswerIsReconciled(t *testing.T) {
	t.Parallel()
	e, f := faultyEnv(t, "/bill_component/batch")
	sh, err := sheettest.Components(filepath.Join(e.dir, "a.xlsx"), sheettest.Options{Rows: 90, Students: 30})
	if err != nil {
		t.Fatal(err)
	}
	e.enrol(t, sh)
	cfg := e.config()
	cfg.ChunkSize, cfg.Concurrency = 50, 1
	r := e.start(t, cfg)
	j := receive(t, r, uploads.Components, sh.Path)
	f.mu.Lock()
	f.lose = 1
	f.mu.Unlock()
	if err := r.Commit(context.Background(), j.ID, financeActor); err != nil {
		t.Fatal(err)
	}
	j = wait(t, r, j.ID)
	if j.State != uploads.StateDone || j.Created != 90 {
		t.Fatalf("job %s, created %d", j.State, j.Created)
	}
	chunks, _ := e.db.UploadChunks(context.Background(), j.ID)
	if len(chunks) != 2 || chunks[0].Recognised != 50 || chunks[0].Attempts != 1 || chunks[1].Recognised != 0 {
		t.Fatalf("chunks: %+v", chunks)
	}
	if n := f.calls.Load(); n != 2 {
		t.Errorf("%d batch calls, want 2 (the lost one was not sent again)", n)
	}
	if keys := e.upstreamKeys(t); len(keys) != 90 {
		t.Errorf("%d components at the service, want 90", len(keys))
	}
	// The audit log says the call's outcome was unknown.
	entries, _, _ := e.db.ListAudit(context.Background(), store.AuditFilter{Outcome: "unknown", Limit: 10})
	if len(entries) != 1 || !strings.Contains(entries[0].Detail, "upload "+j.ID+" chunk 1") {
		t.Errorf("audit of the lost call: %+v", entries)
	}
}

// TestAnswerlessCallLandingLate: a batch whose call the client gave up on (its timeout)
// and which reaches the service only afterwards is looked for once it has landed (Settle
// after the call ended, not after it left): found and confirmed, nothing created twice.
func TestAnswerlessCallLandingLate(t *testing.T) {
	t.Parallel()
	// The call lands 150 ms after the client gave up, and the runner looks a timeout after
	// that: 850 ms for the sandbox to apply the fifty rows, which took over 150 ms at a load
	// of 19 (a 300 ms timeout left too little, and the runner rightly sent the rest again).
	f := &faulty{path: "/bill_component/batch", late: 150 * time.Millisecond}
	timeout := time.Second
	e := newEnvWith(t, timeout, func(next http.RoundTripper) http.RoundTripper { f.next = next; return f })
	sh, err := sheettest.Components(filepath.Join(e.dir, "a.xlsx"), sheettest.Options{Rows: 90, Students: 30})
	if err != nil {
		t.Fatal(err)
	}
	e.enrol(t, sh)
	cfg := e.config()
	cfg.ChunkSize, cfg.Concurrency, cfg.Settle = 50, 1, timeout // the client's timeout, as the portal sets it
	r := e.start(t, cfg)
	j := receive(t, r, uploads.Components, sh.Path)
	if err := r.Commit(context.Background(), j.ID, financeActor); err != nil {
		t.Fatal(err)
	}
	j = wait(t, r, j.ID)
	if j.State != uploads.StateDone || j.Created != 90 {
		t.Fatalf("job %s, created %d", j.State, j.Created)
	}
	// The late call is the first batch to leave: either chunk (the engine marks a chunk
	// sent while the one before it is written, so the second may leave first). It was
	// found at the service, not sent again; the other was answered.
	chunks, _ := e.db.UploadChunks(context.Background(), j.ID)
	if len(chunks) != 2 {
		t.Fatalf("chunks: %+v", chunks)
	}
	recognised := 0
	for _, c := range chunks {
		if c.Attempts != 1 || c.Recognised != 0 && c.Recognised != c.Size {
			t.Fatalf("chunks: %+v", chunks)
		}
		recognised += c.Recognised
	}
	if recognised != chunks[0].Size && recognised != chunks[1].Size {
		t.Fatalf("%d rows recognised, want the late chunk's: %+v", recognised, chunks)
	}
	keys := e.upstreamKeys(t)
	total := 0
	for _, n := range keys {
		total += n
	}
	if len(keys) != 90 || total != 90 {
		t.Errorf("at the service: %d distinct components, %d in all; want 90", len(keys), total)
	}
}

// TestRefusedRowsAndRetry: rows the service refuses are reported with its reason and the
// rest of their batch is sent; a service that keeps failing leaves rows unsent, and Retry
// sends them later.
func TestRefusedRowsAndRetry(t *testing.T) {
	t.Parallel()
	e, f := faultyEnv(t, "/bill_component/batch")
	// The portal knows an account code the service does not: those rows are refused there.
	sh, err := sheettest.Components(filepath.Join(e.dir, "a.xlsx"), sheettest.Options{Rows: 60, Students: 20,
		Accounts: []string{"SPP", "BCA", "KOPERASI"}})
	if err != nil {
		t.Fatal(err)
	}
	e.enrol(t, sh)
	cfg := e.config()
	cfg.Accounts = []string{"SPP", "BCA", "KOPERASI"}
	cfg.ChunkSize, cfg.Concurrency, cfg.MaxAttempts = 30, 1, 3
	cfg.WaitFor = 300 * time.Millisecond // how long it waits for the service before leaving the rows for Retry
	r := e.start(t, cfg)
	j := receive(t, r, uploads.Components, sh.Path)
	if j.RowsNew != 60 {
		t.Fatalf("new rows %d", j.RowsNew)
	}
	f.mu.Lock()
	f.fail = 100 // every batch call fails until further notice
	f.mu.Unlock()
	if err := r.Commit(context.Background(), j.ID, financeActor); err != nil {
		t.Fatal(err)
	}
	j = wait(t, r, j.ID)
	o, err := r.Outcome(context.Background(), j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if j.State != uploads.StateFailed || j.Created != 0 || o.Progress.Pending != 60 || o.UnsentReason != uploads.FailUnavailable {
		t.Fatalf("while the service fails: %s, created %d, outcome %+v", j.State, j.Created, o)
	}

	f.mu.Lock()
	f.fail = 0
	f.mu.Unlock()
	if err := r.Retry(context.Background(), j.ID, financeActor); err != nil {
		t.Fatal(err)
	}
	if err := r.Retry(context.Background(), j.ID, financeActor); !errors.Is(err, uploads.ErrState) {
		t.Errorf("second retry: %v, want ErrState", err)
	}
	j = wait(t, r, j.ID)
	o, _ = r.Outcome(context.Background(), j.ID)
	if j.State != uploads.StatePartial || j.Created != 40 || j.Failed != 20 || len(o.Failures) != 20 || o.Progress.Pending != 0 {
		t.Fatalf("after retry: %s, created %d, failed %d, outcome %+v", j.State, j.Created, j.Failed, o)
	}
	for _, fl := range o.Failures {
		if fl.Code != uploads.FailRejected || !strings.Contains(fl.Arg, "account_code") {
			t.Errorf("failure %+v", fl)
		}
	}
	if keys := e.upstreamKeys(t); len(keys) != 40 {
		t.Errorf("%d components at the service, want 40", len(keys))
	}
}

// TestStudentsJobReconciles: a students batch whose answer is lost is found at the service
// and the roster gets the students anyway.
func TestStudentsJobReconciles(t *testing.T) {
	t.Parallel()
	e, f := faultyEnv(t, "/bill/batch")
	sh, err := sheettest.Students(filepath.Join(e.dir, "s.xlsx"), sheettest.Options{Rows: 25})
	if err != nil {
		t.Fatal(err)
	}
	cfg := e.config()
	cfg.ChunkSize = 10
	r := e.start(t, cfg)
	j := receive(t, r, uploads.Students, sh.Path)
	if j.RowsNew != 25 {
		t.Fatalf("new %d", j.RowsNew)
	}
	f.mu.Lock()
	f.lose = 1
	f.mu.Unlock()
	if err := r.Commit(context.Background(), j.ID, financeActor); err != nil {
		t.Fatal(err)
	}
	j = wait(t, r, j.ID)
	if j.State != uploads.StateDone || j.Created != 25 {
		t.Fatalf("job %s, created %d", j.State, j.Created)
	}
	roster, err := e.db.StudentsByNIS(context.Background(), sh.NIS)
	if err != nil || len(roster) != 25 {
		t.Fatalf("roster has %d of 25: %v", len(roster), err)
	}
	for _, s := range roster {
		if s.Source != store.SourceUpload {
			t.Errorf("roster %s source %s", s.NIS, s.Source)
		}
	}
	if n := f.calls.Load(); n != 3 {
		t.Errorf("%d batch calls, want 3", n)
	}
}

// TestCommitChecksAgain: rows that reached the service between the preview and the
// commit (another upload of the same rows) are skipped, not created twice.
func TestCommitChecksAgain(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 2*time.Second)
	sh, err := sheettest.Components(filepath.Join(e.dir, "a.xlsx"), sheettest.Options{Rows: 40, Students: 10})
	if err != nil {
		t.Fatal(err)
	}
	e.enrol(t, sh)
	r := e.start(t, e.config())
	first := receive(t, r, uploads.Components, sh.Path)
	second, err := r.Receive(context.Background(), financeActor, uploads.Components, "again.xlsx", mustOpen(t, sh.Path))
	if err != nil || second.Job.State != uploads.StateHeld || len(second.Earlier) != 1 {
		t.Fatalf("second upload: %+v %v", second.Job, err)
	}
	if err := r.Analyse(context.Background(), second.Job.ID, financeActor); err != nil {
		t.Fatal(err)
	}
	if j := wait(t, r, second.Job.ID); j.RowsNew != 40 {
		t.Fatalf("second preview: new %d", j.RowsNew)
	}
	// Both previews say 40 new rows; both are committed.
	for _, id := range []string{first.ID, second.Job.ID} {
		if err := r.Commit(context.Background(), id, financeActor); err != nil {
			t.Fatal(err)
		}
	}
	a, b := wait(t, r, first.ID), wait(t, r, second.Job.ID)
	if a.Created+b.Created != 40 || a.Skipped+b.Skipped != 40 {
		t.Fatalf("created %d+%d, skipped %d+%d", a.Created, b.Created, a.Skipped, b.Skipped)
	}
	if keys := e.upstreamKeys(t); len(keys) != 40 {
		t.Fatalf("%d components at the service", len(keys))
	}
	if err := r.Commit(context.Background(), first.ID, financeActor); !errors.Is(err, uploads.ErrState) {
		t.Errorf("committing a finished job: %v", err)
	}
	if err := r.Discard(context.Background(), first.ID, financeActor); !errors.Is(err, uploads.ErrState) {
		t.Errorf("discarding a finished job: %v", err)
	}
}

func TestFinderBothWays(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 2*time.Second)
	ctx := context.Background()
	var students []billing.Student
	for i := range 30 {
		students = append(students, billing.Student{NIS: sheettest.NIS("F", i), Name: sheettest.StudentName(i)})
	}
	if _, err := e.client.CreateStudents(ctx, students); err != nil {
		t.Fatal(err)
	}
	due := time.Date(2026, 8, 10, 0, 0, 0, 0, time.UTC)
	var comps []billing.ComponentInput
	for i, s := range students {
		comps = append(comps, billing.ComponentInput{NIS: s.NIS, AccountCode: "SPP", Name: "SPP Agustus 2026", Due: due, Expiry: due.AddDate(0, 1, 0), Amount: 100})
		if i < 2 {
			for m := 1; m <= 5; m++ {
				d := due.AddDate(0, m, 0)
				comps = append(comps, billing.ComponentInput{NIS: s.NIS, AccountCode: "SPP", Name: "Les " + d.Month().String(), Due: d, Expiry: d.AddDate(0, 1, 0), Amount: 100})
			}
		}
	}
	if _, err := e.client.CreateComponents(ctx, comps); err != nil {
		t.Fatal(err)
	}
	f := &uploads.Finder{Client: e.client, Concurrency: 4}
	// Many students, one day: searched per day.
	var keys []uploads.Key
	for _, s := range students {
		keys = append(keys, uploads.Key{NIS: s.NIS, Name: "spp  AGUSTUS 2026", Due: due})
	}
	keys = append(keys, uploads.Key{NIS: students[0].NIS, Name: "SPP Agustus 2026", Due: due.AddDate(0, 0, 1)})
	found, err := f.FindComponents(ctx, keys)
	if err != nil {
		t.Fatal(err)
	}
	for i, ok := range found {
		if ok != (i < 30) {
			t.Errorf("key %d %+v found %v", i, keys[i], ok)
		}
	}
	// One student, many days: searched per student (and an unknown NIS is simply absent).
	keys = nil
	for m := 1; m <= 6; m++ {
		d := due.AddDate(0, m, 0)
		keys = append(keys, uploads.Key{NIS: students[1].NIS, Name: "Les " + d.Month().String(), Due: d})
	}
	keys = append(keys, uploads.Key{NIS: "NOBODY", Name: "Les", Due: due})
	found, err = f.FindComponents(ctx, keys)
	if err != nil {
		t.Fatal(err)
	}
	for i, ok := range found {
		if ok != (i < 5) {
			t.Errorf("key %d %+v found %v", i, keys[i], ok)
		}
	}
}

func mustOpen(t *testing.T, path string) io.Reader {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.NewReader(string(data))
}

// TestCrashWhileSending: the portal dies while a batch is on its way (the service applies
// it). The chunk is left marked sent; the next start treats it as unknown, finds its rows
// at the service and sends the rest of the job only.
func TestCrashWhileSending(t *testing.T) {
	t.Parallel()
	e, f := faultyEnv(t, "/bill_component/batch")
	sh, err := sheettest.Components(filepath.Join(e.dir, "a.xlsx"), sheettest.Options{Rows: 100, Students: 25})
	if err != nil {
		t.Fatal(err)
	}
	e.enrol(t, sh)
	cfg := e.config()
	cfg.ChunkSize, cfg.Concurrency = 40, 1
	r1 := uploads.NewRunner(cfg, e.db, e.client, e.writer, e.log)
	if err := r1.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	j := receive(t, r1, uploads.Components, sh.Path)
	f.mu.Lock()
	f.hang = 1
	f.mu.Unlock()
	if err := r1.Commit(context.Background(), j.ID, financeActor); err != nil {
		t.Fatal(err)
	}
	// Once the first batch is applied and its call hangs, the process "dies".
	deadline := time.Now().Add(10 * time.Second)
	for {
		if c, err := e.db.UploadChunk(context.Background(), j.ID, 1); err == nil && c.State == uploads.ChunkSent && len(e.upstreamKeys(t)) == 40 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first batch was never sent")
		}
		time.Sleep(5 * time.Millisecond)
	}
	stopped, cancel := context.WithCancel(context.Background())
	cancel()
	_ = r1.Stop(stopped)
	// A crash saves nothing: put the chunk back as the dead process left it.
	c, err := e.db.UploadChunk(context.Background(), j.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	c.State = uploads.ChunkSent
	if err := e.db.SaveUploadChunk(context.Background(), c); err != nil {
		t.Fatal(err)
	}

	r2 := e.start(t, cfg)
	j = wait(t, r2, j.ID)
	if j.State != uploads.StateDone || j.Created != 100 {
		t.Fatalf("job %s, created %d", j.State, j.Created)
	}
	c, _ = e.db.UploadChunk(context.Background(), j.ID, 1)
	if c.Recognised != 40 || c.Attempts != 1 {
		t.Errorf("first chunk: recognised %d, attempts %d; want 40 found, sent once", c.Recognised, c.Attempts)
	}
	if keys := e.upstreamKeys(t); len(keys) != 100 {
		t.Errorf("%d components at the service, want 100", len(keys))
	}
}

// TestCleanUp: the sheets and problems of old uploads are forgotten (their counts stay);
// uploads never committed are discarded.
func TestCleanUp(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 2*time.Second)
	sh, err := sheettest.Components(filepath.Join(e.dir, "a.xlsx"), sheettest.Options{Rows: 10, Students: 5, Bad: []int{3}})
	if err != nil {
		t.Fatal(err)
	}
	e.enrol(t, sh)
	cfg := e.config()
	r1 := uploads.NewRunner(cfg, e.db, e.client, e.writer, e.log)
	if err := r1.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	done := receive(t, r1, uploads.Components, sh.Path)
	if err := r1.Commit(context.Background(), done.ID, financeActor); err != nil {
		t.Fatal(err)
	}
	wait(t, r1, done.ID)
	previewed := receive(t, r1, uploads.Components, writeSheet(t, "Tagihan", [][]any{{"NIS", "Nama Tagihan", "Kode Rekening", "Nominal", "Jatuh Tempo", "Kedaluwarsa"}}))
	_ = r1.Stop(context.Background())

	cfg.Retention = time.Millisecond
	time.Sleep(20 * time.Millisecond)
	r2 := e.start(t, cfg) // cleans at start
	deadline := time.Now().Add(5 * time.Second)
	for {
		a, _ := e.db.UploadJobByID(context.Background(), done.ID)
		b, _ := e.db.UploadJobByID(context.Background(), previewed.ID)
		if !a.FileKept && !b.FileKept {
			if a.State != uploads.StateDone || b.State != uploads.StateDiscarded {
				t.Fatalf("after clean-up: %s and %s", a.State, b.State)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("files still kept: %v %v", a.FileKept, b.FileKept)
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, id := range []string{done.ID, previewed.ID} {
		if _, err := e.db.UploadFileSize(context.Background(), id, store.UploadSheet); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("sheet of %s still kept: %v", id, err)
		}
	}
	if n := countIssues(t, e.db, done.ID); n != 0 {
		t.Errorf("%d problems of a cleaned-up upload kept", n)
	}
	if j, _ := e.db.UploadJobByID(context.Background(), done.ID); j.Issues != 1 || j.IssuesKept != 0 || j.Created != 9 {
		t.Errorf("cleaned-up upload: %d issues, %d kept, %d created", j.Issues, j.IssuesKept, j.Created)
	}
	var buf strings.Builder
	j, _ := e.db.UploadJobByID(context.Background(), done.ID)
	if err := r2.ErrorWorkbook(context.Background(), j, &buf, i18nPrinter()); !errors.Is(err, uploads.ErrFileGone) {
		t.Errorf("error workbook of a cleaned job: %v", err)
	}
}

// TestRetryAfterTheCheckFailed: a job whose check before sending could not reach the
// service fails with that reason and nothing sent; Retry runs it from the check again.
func TestRetryAfterTheCheckFailed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Second)
	sh, err := sheettest.Components(filepath.Join(e.dir, "a.xlsx"), sheettest.Options{Rows: 20, Students: 5})
	if err != nil {
		t.Fatal(err)
	}
	e.enrol(t, sh)
	cfg := e.config()
	cfg.MaxAttempts, cfg.WaitFor = 2, 300*time.Millisecond
	r := e.start(t, cfg)
	j := receive(t, r, uploads.Components, sh.Path)
	e.sb.SetFaults(sandbox.Faults{ErrorRate: 1, Status: 503})
	if err := r.Commit(context.Background(), j.ID, financeActor); err != nil {
		t.Fatal(err)
	}
	j = wait(t, r, j.ID)
	if j.State != uploads.StateFailed || j.Problem != "upstream" {
		t.Fatalf("job %s, problem %q", j.State, j.Problem)
	}
	e.sb.SetFaults(sandbox.Faults{})
	if err := r.Retry(context.Background(), j.ID, financeActor); err != nil {
		t.Fatal(err)
	}
	j = wait(t, r, j.ID)
	if j.State != uploads.StateDone || j.Created != 20 || j.Problem != "" {
		t.Fatalf("after retry: %s, created %d, problem %q", j.State, j.Created, j.Problem)
	}
}

// TestStudentCreatedMeanwhile: a student registered by someone else after the check and
// before the batch is not an error: the service's "already exists" counts as there, and
// the rest of the batch is sent.
func TestStudentCreatedMeanwhile(t *testing.T) {
	t.Parallel()
	e, f := faultyEnv(t, "/bill/batch")
	sh, err := sheettest.Students(filepath.Join(e.dir, "s.xlsx"), sheettest.Options{Rows: 8})
	if err != nil {
		t.Fatal(err)
	}
	f.first = func() {
		if _, err := e.client.CreateStudents(context.Background(), []billing.Student{{NIS: sh.NIS[3], Name: "Didaftarkan di loket"}}); err != nil {
			t.Error(err)
		}
	}
	r := e.start(t, e.config())
	j := receive(t, r, uploads.Students, sh.Path)
	if err := r.Commit(context.Background(), j.ID, financeActor); err != nil {
		t.Fatal(err)
	}
	j = wait(t, r, j.ID)
	o, _ := r.Outcome(context.Background(), j.ID)
	if j.State != uploads.StateDone || j.Created != 8 || o.Progress.Recognised != 1 || len(o.Failures) != 0 {
		t.Fatalf("job %s, created %d, outcome %+v", j.State, j.Created, o)
	}
	for _, n := range sh.NIS {
		if _, err := e.client.Student(context.Background(), n); err != nil {
			t.Errorf("student %s: %v", n, err)
		}
	}
}

// TestAnalysisUnderLease: two instances starting together both find an unfinished analysis;
// only the one holding the upload's lease reads it, and a lapsed lease lets another go on.
func TestAnalysisUnderLease(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 2*time.Second)
	sh, err := sheettest.Components(filepath.Join(e.dir, "a.xlsx"), sheettest.Options{Rows: 40, Students: 10})
	if err != nil {
		t.Fatal(err)
	}
	e.enrol(t, sh)
	cfg := e.config()
	// A runner that never started receives the file: the upload waits in "analysing", as
	// one left by an instance that stopped mid-analysis.
	idle := uploads.NewRunner(cfg, e.db, e.client, e.writer, e.log)
	f, err := os.Open(sh.Path)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := idle.Receive(context.Background(), financeActor, uploads.Components, "a.xlsx", f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	id := rec.Job.ID
	ctx := context.Background()
	now := time.Now()
	if ok, err := e.db.JobLeases(store.UploadJobsTable).Claim(ctx, id, "other-instance", now.Add(time.Hour), now); err != nil || !ok {
		t.Fatalf("claim for the other instance: %v %v", ok, err)
	}

	r := e.start(t, cfg)
	time.Sleep(300 * time.Millisecond)
	if j, err := e.db.UploadJobByID(ctx, id); err != nil || j.State != uploads.StateAnalysing {
		t.Fatalf("analysed under another instance's lease: %s %v", j.State, err)
	}
	_ = r.Stop(ctx)

	// The other instance is gone and its lease lapses: the next start reads the upload.
	if err := e.db.JobLeases(store.UploadJobsTable).Release(ctx, id, "other-instance"); err != nil {
		t.Fatal(err)
	}
	r2 := e.start(t, cfg)
	if j := wait(t, r2, id); j.State != uploads.StateReady {
		t.Fatalf("after the lease: state %s", j.State)
	}
}
