package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/config"
	"github.com/sekolah/portal/internal/metrics/metricstest"
	"github.com/sekolah/portal/internal/store"
)

// syncBuffer collects what the portal prints while it runs in another goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestFreshStart is `go run ./cmd/portal` on a fresh clone: database created and migrated,
// sandbox with its demo school, bootstrap admin with a generated password printed once, one
// line saying where to go, health answering, and a graceful stop.
func TestFreshStart(t *testing.T) {
	dir := t.TempDir()
	addr := freeAddr(t)
	env := map[string]string{"PORTAL_DATA_DIR": dir, "PORTAL_ADDR": addr}
	getenv := func(k string) string { return env[k] }

	start := func() (context.CancelFunc, chan error, *syncBuffer) {
		ctx, cancel := context.WithCancel(context.Background())
		out := &syncBuffer{}
		done := make(chan error, 1)
		go func() { done <- run(ctx, nil, getenv, strings.NewReader(""), io.Discard, out) }()
		deadline := time.Now().Add(60 * time.Second)
		for !strings.Contains(out.String(), "portal ready") {
			select {
			case err := <-done:
				t.Fatalf("portal stopped: %v\n%s", err, out)
			default:
			}
			if time.Now().After(deadline) {
				t.Fatalf("portal not ready:\n%s\n%s", out, allGoroutines())
			}
			time.Sleep(50 * time.Millisecond)
		}
		return cancel, done, out
	}

	cancel, done, out := start()
	log := out.String()
	// Standard output is not a terminal here (a service manager, a container log): the
	// generated password goes to a file only the portal's user can read, and the log
	// names the file, never the password.
	pwFile := filepath.Join(dir, adminPasswordFile)
	fi, err := os.Stat(pwFile)
	if err != nil {
		t.Fatalf("no admin password file: %v\n%s", err, log)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("admin password file mode %v, want 0600", perm)
	}
	content, _ := os.ReadFile(pwFile)
	_, password, _ := strings.Cut(string(content), "Password: ")
	password, _, _ = strings.Cut(password, "\n")
	if !strings.Contains(string(content), "Username: admin") || len(password) < 12 {
		t.Fatalf("admin password file:\n%s", content)
	}
	if strings.Contains(log, password) || strings.Contains(log, "Password: ") {
		t.Fatalf("the password reached the log:\n%s", log)
	}
	if !strings.Contains(log, pwFile) {
		t.Fatalf("the log does not say where the password is:\n%s", log)
	}
	if !strings.Contains(log, "open http://"+addr) {
		t.Fatalf("no line with the URL:\n%s", log)
	}
	// Metrics are off unless PORTAL_METRICS_ADDR asks for them (TestMetricsListener).
	if strings.Contains(log, "metrics at") {
		t.Fatalf("metrics served without PORTAL_METRICS_ADDR:\n%s", log)
	}
	res, err := http.Get("http://" + addr + "/healthz")
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("healthz: %v %v", err, res)
	}
	res.Body.Close()
	res, err = http.Get("http://" + addr + "/login")
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("login page: %v %v", err, res)
	}
	res.Body.Close()
	// A path of 50,000 characters is logged, but not whole: every value of a line is bounded.
	res, err = http.Get("http://" + addr + "/" + strings.Repeat("x", 50_000) + "?q=" + strings.Repeat("y", 50_000))
	if err != nil || res.StatusCode != http.StatusNotFound {
		t.Fatalf("a long path: %v %v", err, res)
	}
	res.Body.Close()
	// The request's line is written once its answer is sent: wait for it.
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(out.String(), "more bytes)"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the long path is not in the log, cut:\n%.2000s", out)
		}
	}
	for line := range strings.Lines(out.String()) {
		if len(line) > 4*1024 {
			t.Fatalf("a log line of %d bytes: %.300s…", len(line), line)
		}
	}
	// The embedded sandbox's demo school reaches the roster without anyone pressing Sync.
	db, err := store.Open(context.Background(), "sqlite:"+dir+"/portal.db", time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		_, n, err := db.ListStudents(context.Background(), store.StudentFilter{Limit: 1})
		if err == nil && n >= 500 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("roster not filled from the demo school: %d students, %v", n, err)
		}
	}
	// ... and the registration wizard has a sample fee template to try.
	if templates, err := db.ListFeeTemplates(context.Background()); err != nil || len(templates) != 1 || len(templates[0].Lines) != 3 {
		t.Fatalf("demo fee template: %+v %v", templates, err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("shutdown: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no graceful shutdown")
	}

	// The password works (checked against the database the portal left).
	authSvc := auth.NewService(db, clock.System(time.UTC))
	if _, err := authSvc.SignIn(context.Background(), "admin", password, "127.0.0.1"); err != nil {
		t.Fatalf("sign in with the password from the file: %v", err)
	}

	// A second start keeps the admin and gives no password again; it reminds whoever reads
	// the log that the file is still there.
	cancel, done, out = start()
	if strings.Contains(out.String(), "Password: ") || strings.Contains(out.String(), password) {
		t.Fatalf("password given again:\n%s", out)
	}
	if !strings.Contains(out.String(), "delete "+pwFile) {
		t.Errorf("no reminder to delete the password file:\n%s", out)
	}
	cancel()
	<-done
}

// TestFirstStartOnATerminal: started by a person at a terminal, the portal prints the
// generated password there (standard output) once, and writes no file nor log line with it.
func TestFirstStartOnATerminal(t *testing.T) {
	defer func(old func(io.Writer) bool) { isTerminal = old }(isTerminal)
	isTerminal = func(io.Writer) bool { return true }
	dir := t.TempDir()
	var stdout, log bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&log, nil))
	if err := giveAdminPassword(config.Config{DataDir: dir}, logger, &stdout, true, "generated-secret-1"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "Username: admin") || !strings.Contains(stdout.String(), "Password: generated-secret-1") {
		t.Fatalf("no password on the terminal:\n%s", stdout.String())
	}
	if strings.Contains(log.String(), "generated-secret-1") {
		t.Fatalf("the password reached the log:\n%s", log.String())
	}
	if _, err := os.Stat(filepath.Join(dir, adminPasswordFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("password file written on a terminal: %v", err)
	}
}

// workerFrames are functions only the portal's background workers run (the job loop is
// the uploads' and the corrections' runners'). The ledger's comes last: a goroutine whose
// frames are elided is named by who created it (below), which for every internal/jobs
// worker is jobs.(*Worker).Go.
var workerFrames = []string{
	"internal/jobs.(*Queue).Loop", "internal/uploads.(*Runner).janitor", "internal/uploads.(*Runner).watchAnalyses",
	"internal/app.(*Periodic).loop", "internal/ledger.(*Syncer).loop", "internal/registration.(*Intake).loop",
	"internal/ledger.(*Confirmer).loop",
}

// elidedWorker stands for a goroutine of an internal/jobs worker whose own frames are
// elided from the dump (deep in the SQLite driver, say, waiting for the ledger's first
// fill to let go of the database): only the line that says who created it is left,
// jobs.(*Worker).Go, the same for every worker.
const elidedWorker = "an internal/jobs worker (its frames elided)"

// allGoroutines is every goroutine's stack, for a start that does not finish: where it
// waits.
func allGoroutines() string {
	buf := make([]byte, 8<<20)
	return string(buf[:runtime.Stack(buf, true)])
}

// workerGoroutines lists the goroutines running a background worker's code.
func workerGoroutines() []string {
	buf := make([]byte, 4<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		// A frame of the worker's own names it; only a goroutine without one (its frames
		// elided) is named by who created it.
		if i := slices.IndexFunc(workerFrames, func(f string) bool { return strings.Contains(g, f) }); i >= 0 {
			out = append(out, workerFrames[i])
			continue
		}
		if strings.Contains(g, "created by github.com/sekolah/portal/internal/jobs.(*Worker).Go") {
			out = append(out, elidedWorker)
		}
	}
	return out
}

// serving runs the portal with env and returns once it is ready, with what it prints;
// stop stops it as SIGTERM does and fails the test unless it stops gracefully.
func serving(t *testing.T, env map[string]string) (stop func(), out *syncBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	out = &syncBuffer{}
	ended := make(chan error, 1)
	go func() {
		ended <- run(ctx, nil, func(k string) string { return env[k] }, strings.NewReader(""), io.Discard, out)
	}()
	for deadline := time.Now().Add(60 * time.Second); !strings.Contains(out.String(), "portal ready"); time.Sleep(20 * time.Millisecond) {
		select {
		case err := <-ended:
			t.Fatalf("portal stopped: %v\n%s", err, out)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("portal not ready:\n%s\n%s", out, allGoroutines())
		}
	}
	stop = func() {
		t.Helper()
		cancel()
		select {
		case err := <-ended:
			if err != nil {
				t.Fatalf("shutdown: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("no graceful shutdown")
		}
	}
	return stop, out
}

// run returns only once every background worker has stopped, so none of them touches the
// database after it closes: the uploads runner, the pruner and the ledger's sync (its
// first fill of the demo school), cut short here by a stop right after start.
func TestShutdownStopsTheWorkersFirst(t *testing.T) {
	dir := t.TempDir()
	stop, out := serving(t, map[string]string{"PORTAL_DATA_DIR": dir, "PORTAL_ADDR": freeAddr(t)})
	running := workerGoroutines()
	elided := slices.Clone(running)
	for _, want := range []string{"internal/jobs.(*Queue).Loop", "internal/app.(*Periodic).loop", "internal/ledger.(*Syncer).loop",
		"internal/registration.(*Intake).loop"} {
		i := slices.Index(elided, want)
		if i < 0 {
			i = slices.Index(elided, elidedWorker) // one whose frames are elided may be it
		}
		if i < 0 {
			t.Fatalf("%s is not running while the portal serves: %v", want, running)
		}
		elided = slices.Delete(elided, i, i+1)
	}
	t.Logf("workers running at the stop: %v", running)
	stop()
	if left := workerGoroutines(); len(left) > 0 {
		t.Fatalf("run returned while workers still run: %v", left)
	}
	if strings.Contains(out.String(), "database is closed") {
		t.Fatalf("something used the database after it closed:\n%s", out)
	}
}

// TestUserAddBeforeTheFirstStart (issue 30): `portal user add` of a finance account before
// the portal ever started used to leave it without an admin, PORTAL_ADMIN_PASSWORD
// ignored without a word. The command now says no admin exists yet; the first start makes
// one with the variable's password and says so; a later start says the variable is not
// used.
func TestUserAddBeforeTheFirstStart(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"PORTAL_DATA_DIR": dir, "PORTAL_ADDR": freeAddr(t), "PORTAL_ADMIN_PASSWORD": "sandi-dari-operator",
		"PORTAL_DEMO_BANK_PAYMENTS": "off"}
	getenv := func(k string) string { return env[k] }
	var cmdOut bytes.Buffer
	if err := run(context.Background(), []string{"user", "add", "siti", "finance"}, getenv, strings.NewReader("sandi-siti-keuangan\n"), &cmdOut, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(cmdOut.String(), "added siti (finance)") || !strings.Contains(cmdOut.String(), "there is no admin account yet") {
		t.Fatalf("user add said:\n%s", cmdOut.String())
	}
	start := func() string {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		out := &syncBuffer{}
		done := make(chan error, 1)
		go func() { done <- run(ctx, nil, getenv, strings.NewReader(""), io.Discard, out) }()
		for deadline := time.Now().Add(60 * time.Second); !strings.Contains(out.String(), "portal ready"); time.Sleep(20 * time.Millisecond) {
			select {
			case err := <-done:
				t.Fatalf("portal stopped: %v\n%s", err, out)
			default:
			}
			if time.Now().After(deadline) {
				t.Fatalf("portal not ready:\n%s", out)
			}
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("shutdown: %v", err)
		}
		return out.String()
	}
	if log := start(); !strings.Contains(log, "no admin account existed: created admin with the password PORTAL_ADMIN_PASSWORD gives") ||
		!strings.Contains(log, "sign in as admin with PORTAL_ADMIN_PASSWORD") {
		t.Fatalf("the first start said:\n%s", log)
	}
	db, err := store.Open(context.Background(), "sqlite:"+dir+"/portal.db", time.Now)
	if err != nil {
		t.Fatal(err)
	}
	if u, err := auth.NewService(db, clock.System(time.UTC)).SignIn(context.Background(), "admin", "sandi-dari-operator", "127.0.0.1"); err != nil || u.Role != "admin" {
		t.Fatalf("sign in as admin: %+v %v", u, err)
	}
	db.Close()
	if log := start(); !strings.Contains(log, "PORTAL_ADMIN_PASSWORD is set but an admin account exists already") {
		t.Fatalf("the second start said:\n%s", log)
	}
}

func TestBadConfigNamesTheVariable(t *testing.T) {
	for _, env := range []map[string]string{
		{"PORTAL_TZ": "Nowhere/Land"},
		{"PORTAL_METRICS_ADDR": "9090"},
		{"PORTAL_METRICS_ADDR": "127.0.0.1:8080"}, // the pages' default address
	} {
		env["PORTAL_DATA_DIR"] = t.TempDir()
		err := run(context.Background(), nil, func(k string) string { return env[k] }, nil, io.Discard, io.Discard)
		for k := range env {
			if k != "PORTAL_DATA_DIR" && (err == nil || !strings.Contains(err.Error(), k)) {
				t.Errorf("%v: err = %v; want it to name %s", env, err, k)
			}
		}
	}
}

// TestMetricsListener: PORTAL_METRICS_ADDR serves /metrics in Prometheus' text format on a
// listener of its own (the pages' address does not serve it, nor does the metrics' serve
// anything else), read from the running portal; the start says where; a stop closes it
// with the rest; an address in use stops the start naming the variable.
func TestMetricsListener(t *testing.T) {
	dir := t.TempDir()
	addr, metricsAddr := freeAddr(t), freeAddr(t)
	stop, out := serving(t, map[string]string{"PORTAL_DATA_DIR": dir, "PORTAL_ADDR": addr, "PORTAL_METRICS_ADDR": metricsAddr,
		"PORTAL_DEMO_BANK_PAYMENTS": "off"})
	if !strings.Contains(out.String(), "metrics at http://"+metricsAddr+"/metrics") {
		t.Errorf("the start does not say where the metrics are:\n%s", out)
	}
	get := func(url string) (int, string) {
		t.Helper()
		res, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if code, _ := get("http://" + addr + "/login"); code != http.StatusOK {
		t.Fatalf("login page: %d", code)
	}
	s := metricstest.Get(t, "http://"+metricsAddr+"/metrics")
	if s.Value("portal_database_up") != 1 || !s.Has("go_goroutines") || !s.Has("portal_ledger_sync_lag_seconds") ||
		s.Value("portal_http_request_duration_seconds", "route", "/login", "method", "GET", "status", "2xx") != 1 {
		t.Errorf("scrape: database up %v, goroutines %v, lag %v, login pages %v", s.Value("portal_database_up"), s.Has("go_goroutines"),
			s.Has("portal_ledger_sync_lag_seconds"), s.Value("portal_http_request_duration_seconds", "route", "/login"))
	}
	if !slices.Equal(s.LabelValues("portal_jobs_queued", "kind"), []string{"correction", "outbox", "upload"}) {
		t.Errorf("job kinds: %v", s.LabelValues("portal_jobs_queued", "kind"))
	}
	if code, body := get("http://" + addr + "/metrics"); code != http.StatusNotFound || strings.Contains(body, "go_goroutines") {
		t.Errorf("the pages' address serves the metrics: %d", code)
	}
	if code, _ := get("http://" + metricsAddr + "/login"); code != http.StatusNotFound {
		t.Errorf("the metrics' address serves something else: %d", code)
	}

	// A second portal asking for the same metrics address does not start.
	env2 := map[string]string{"PORTAL_DATA_DIR": t.TempDir(), "PORTAL_ADDR": freeAddr(t), "PORTAL_METRICS_ADDR": metricsAddr,
		"PORTAL_DEMO_BANK_PAYMENTS": "off"}
	if err := run(t.Context(), nil, func(k string) string { return env2[k] }, strings.NewReader(""), io.Discard, io.Discard); err == nil ||
		!strings.Contains(err.Error(), "PORTAL_METRICS_ADDR") {
		t.Errorf("metrics address in use: %v", err)
	}

	stop()
	if c, err := net.DialTimeout("tcp", metricsAddr, time.Second); err == nil {
		c.Close()
		t.Error("the metrics' listener is still open after the stop")
	}
}
