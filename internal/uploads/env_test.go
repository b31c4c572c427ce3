package uploads_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/changes"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/sandbox"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/store/storetest"
	"github.com/sekolah/portal/internal/uploads"
	"github.com/sekolah/portal/internal/uploads/sheettest"
)

var accounts = []string{"SPP", "BCA", "MANDIRI"}

var financeActor = auth.Actor{ID: "user-finance", Username: "finance", Role: auth.Finance, IP: "127.0.0.1"}

// env is a real database, the sandbox over real HTTP and the client and writer on it.
type env struct {
	db     *store.DB
	sb     *sandbox.Server
	client *billing.Client
	writer *changes.Writer
	// setup is the writer the tests arrange the service with (students enrolled,
	// components seeded): its calls may take seconds, so a loaded machine does not fail
	// the arranging with the short timeout a fault test gives the runner's client.
	setup *changes.Writer
	dir   string
	log   *slog.Logger
	// url and timeout make more clients on the same sandbox (see instance).
	url     string
	timeout time.Duration
}

func newEnv(t testing.TB, timeout time.Duration) *env {
	return newEnvWith(t, timeout, nil)
}

// newEnvWith is newEnv with the client's calls going through wrap(http.DefaultTransport),
// so a test can lose an answer on its way back.
func newEnvWith(t testing.TB, timeout time.Duration, wrap func(http.RoundTripper) http.RoundTripper) *env {
	t.Helper()
	db := storetest.OpenTest(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if testing.Verbose() && os.Getenv("UPLOADS_LOG") != "" {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	sb, err := sandbox.New(sandbox.Options{Username: "portal", Password: "issued", Accounts: accounts,
		Now: time.Date(2026, 7, 1, 3, 0, 0, 0, time.UTC), HangLimit: 10 * time.Second, Seed: 7, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(sb)
	t.Cleanup(func() { srv.Close(); sb.Close() })
	e := &env{db: db, sb: sb, url: srv.URL, timeout: timeout, dir: t.TempDir(), log: log}
	e.client, e.writer = e.instance(t, wrap)
	e.setup = setupWriter(t, e.url, e.sb, e.db, nil, e.log)
	return e
}

// setupWriter is a writer on the service at url whose calls may take 10 seconds.
func setupWriter(t testing.TB, url string, sb *sandbox.Server, db *store.DB, l *ledger.Ledger, log *slog.Logger) *changes.Writer {
	t.Helper()
	client, err := billing.New(billing.Config{BaseURL: url, Username: "portal", Password: "issued", Now: sb.Now,
		Timeout: 10 * time.Second, RetryBase: 5 * time.Millisecond, RetryMax: 20 * time.Millisecond, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	return &changes.Writer{Client: client, DB: db, Ledger: l, Log: log, Clock: clock.System(time.UTC)}
}

// instance is another portal instance's client and writer on the same sandbox and
// database, its calls going through wrap(http.DefaultTransport) when wrap is not nil.
func (e *env) instance(t testing.TB, wrap func(http.RoundTripper) http.RoundTripper) (*billing.Client, *changes.Writer) {
	t.Helper()
	var hc *http.Client
	if wrap != nil {
		hc = &http.Client{Transport: wrap(http.DefaultTransport)}
	}
	client, err := billing.New(billing.Config{BaseURL: e.url, Username: "portal", Password: "issued", Now: e.sb.Now,
		Timeout: e.timeout, RetryBase: 5 * time.Millisecond, RetryMax: 20 * time.Millisecond, Logger: e.log, HTTPClient: hc})
	if err != nil {
		t.Fatal(err)
	}
	return client, &changes.Writer{Client: client, DB: e.db, Log: e.log, Clock: clock.System(time.UTC)}
}

// config is a runner configuration that retries fast.
func (e *env) config() uploads.Config {
	return uploads.Config{ChunkSize: 200, Concurrency: 3, Accounts: accounts, Clock: clock.System(time.UTC),
		// The school's today, in the school year of the sheets the tests make (July 2026 on).
		Calendar:  clock.Fixed(time.Date(2026, 7, 1, 3, 0, 0, 0, time.UTC), time.UTC),
		RetryBase: 5 * time.Millisecond, RetryMax: 50 * time.Millisecond, Settle: 50 * time.Millisecond, MaxAttempts: 40}
}

// enrol creates the sheet's students at the service and in the roster.
func (e *env) enrol(t testing.TB, sh sheettest.Sheet) {
	t.Helper()
	for start := 0; start < len(sh.NIS); start += 500 {
		var list []billing.Student
		for i := start; i < min(start+500, len(sh.NIS)); i++ {
			list = append(list, billing.Student{NIS: sh.NIS[i], Name: sh.Names[i], Description: "Kelas 7A"})
		}
		if _, err := e.setup.CreateStudents(context.Background(), auth.SystemActor, list, store.SourcePortal); err != nil {
			t.Fatal(err)
		}
	}
}

// upstreamKeys lists every component at the service as NIS|name|due, with duplicates.
func (e *env) upstreamKeys(t testing.TB) map[string]int {
	t.Helper()
	keys := map[string]int{}
	for b, err := range e.client.All(context.Background(), billing.Query{}) {
		if err != nil {
			t.Fatal(err)
		}
		keys[b.NIS+"|"+b.Name+"|"+b.Due.Format(time.DateOnly)]++
	}
	return keys
}

func (e *env) start(t testing.TB, cfg uploads.Config) *uploads.Runner {
	t.Helper()
	r := uploads.NewRunner(cfg, e.db, e.client, e.writer, e.log)
	e.startRunner(t, r)
	return r
}

// startRunner starts r and stops it when the test ends.
func (e *env) startRunner(t testing.TB, r *uploads.Runner) {
	t.Helper()
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Stop(context.Background()) })
}

// receive uploads the file at path and waits for its analysis.
func receive(t testing.TB, r *uploads.Runner, kind uploads.Kind, path string) store.UploadJob {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec, err := r.Receive(context.Background(), financeActor, kind, filepath.Base(path), f)
	if err != nil {
		t.Fatal(err)
	}
	return wait(t, r, rec.Job.ID)
}

func wait(t testing.TB, r *uploads.Runner, id string) store.UploadJob {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Second)
	defer cancel()
	j, err := r.Wait(ctx, id)
	if err != nil {
		t.Fatalf("wait for job %s: %v (state %s)", id, err, j.State)
	}
	return j
}
