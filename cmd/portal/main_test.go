package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

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
				t.Fatalf("portal not ready:\n%s", out)
			}
			time.Sleep(50 * time.Millisecond)
		}
		return cancel, done, out
	}

	cancel, done, out := start()
	log := out.String()
	if !strings.Contains(log, "Username: admin") || !strings.Contains(log, "Password: ") {
		t.Fatalf("no generated admin password printed:\n%s", log)
	}
	if !strings.Contains(log, "open http://"+addr) {
		t.Fatalf("no line with the URL:\n%s", log)
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
	// The embedded sandbox's demo school reaches the roster without anyone pressing Sync.
	db, err := store.Open(context.Background(), "sqlite:"+dir+"/portal.db")
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

	// A second start keeps the admin and prints no password again.
	cancel, done, out = start()
	if strings.Contains(out.String(), "Password: ") {
		t.Fatalf("password printed again:\n%s", out)
	}
	cancel()
	<-done
}

// workerFrames are functions only the portal's background workers run.
var workerFrames = []string{
	"internal/uploads.(*Runner).loop", "internal/uploads.(*Runner).janitor", "internal/app.(*Periodic).loop",
	"internal/ledger.(*Syncer).loop",
}

// createdBy names the function that starts a worker's one goroutine: a goroutine deep in
// the SQLite driver (waiting for the ledger's first fill to let go of the database) has
// its bottom frames elided from the dump, but not the line that says who created it.
var createdBy = map[string]string{
	"internal/app.(*Periodic).loop":  "internal/app.(*Periodic).Start",
	"internal/ledger.(*Syncer).loop": "internal/ledger.(*Syncer).Start",
}

// workerGoroutines lists the goroutines running a background worker's code.
func workerGoroutines() []string {
	buf := make([]byte, 4<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		for _, f := range workerFrames {
			if strings.Contains(g, f) || createdBy[f] != "" && strings.Contains(g, "created by github.com/sekolah/portal/"+createdBy[f]) {
				out = append(out, f)
				break
			}
		}
	}
	return out
}

// run returns only once every background worker has stopped, so none of them touches the
// database after it closes: the uploads runner, the pruner and the ledger's sync (its
// first fill of the demo school), cut short here by a stop right after start.
func TestShutdownStopsTheWorkersFirst(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"PORTAL_DATA_DIR": dir, "PORTAL_ADDR": freeAddr(t)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, nil, func(k string) string { return env[k] }, strings.NewReader(""), io.Discard, out)
	}()
	for deadline := time.Now().Add(60 * time.Second); !strings.Contains(out.String(), "portal ready"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("portal not ready:\n%s", out)
		}
	}
	running := workerGoroutines()
	for _, want := range []string{"internal/uploads.(*Runner).loop", "internal/app.(*Periodic).loop", "internal/ledger.(*Syncer).loop"} {
		if !slices.Contains(running, want) {
			t.Fatalf("%s is not running while the portal serves: %v", want, running)
		}
	}
	t.Logf("workers running at the stop: %v", running)
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("shutdown: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no graceful shutdown")
	}
	if left := workerGoroutines(); len(left) > 0 {
		t.Fatalf("run returned while workers still run: %v", left)
	}
	if strings.Contains(out.String(), "database is closed") {
		t.Fatalf("something used the database after it closed:\n%s", out)
	}
}

func TestBadConfigNamesTheVariable(t *testing.T) {
	env := map[string]string{"PORTAL_TZ": "Nowhere/Land", "PORTAL_DATA_DIR": t.TempDir()}
	err := run(context.Background(), nil, func(k string) string { return env[k] }, nil, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "PORTAL_TZ") {
		t.Fatalf("err = %v", err)
	}
}
