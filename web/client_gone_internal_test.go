package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/app"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/config"
)

// lockedBuffer is a log sink written from the server's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestCancellationsAreNotErrors: a line about a request's cancellation (wrapped by a
// store or the billing client as they do) is written at INFO, marked canceled; a timeout,
// an unavailable service and any other failure keep their level.
func TestCancellationsAreNotErrors(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	log := slog.New(quietCancellations(slog.NewTextHandler(&buf, nil)))
	log.Error("dashboard figures from the ledger", "err", fmt.Errorf("ledger: dashboard: %w", context.Canceled))
	log.Warn("counter search", "q", "Budi", "err", fmt.Errorf("billing: GET /students: %w", context.Canceled))
	log.Error("report export", "err", fmt.Errorf("ledger: %w", context.DeadlineExceeded))
	log.Warn("create student", "err", fmt.Errorf("billing: %w", billing.ErrUnavailable))
	log.Error("internal error", "err", errors.New("disk full"))
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	want := []string{
		`level=INFO msg="dashboard figures from the ledger" err="ledger: dashboard: context canceled" canceled=true`,
		`level=INFO msg="counter search" q=Budi err="billing: GET /students: context canceled" canceled=true`,
		`level=ERROR msg="report export" err="ledger: context deadline exceeded"`,
		`level=WARN msg="create student"`,
		`level=ERROR msg="internal error" err="disk full"`,
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines:\n%s", len(lines), buf.String())
	}
	for i, w := range want {
		if !strings.Contains(lines[i], w) {
			t.Errorf("line %d = %s\nwant it to hold %s", i+1, lines[i], w)
		}
	}
	// A WARN-only sink still gets the errors, and not the quietened lines.
	buf.Reset()
	log = slog.New(quietCancellations(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelWarn})))
	log.Error("x", "err", context.Canceled)
	log.Error("y", "err", context.DeadlineExceeded)
	if got := buf.String(); strings.Contains(got, "msg=x") || !strings.Contains(got, "msg=y") {
		t.Errorf("at WARN:\n%s", got)
	}
}

// TestClientGoneMidRequest: a person who closes the tab while a page waits (here on a
// query that ends with the request's cancellation, as the store's do) leaves no ERROR
// line through the portal's own handler, logger and helpers: "client went away" at INFO.
func TestClientGoneMidRequest(t *testing.T) {
	t.Parallel()
	sink := &lockedBuffer{}
	keys := [2][]byte{[]byte(strings.Repeat("h", 32)), []byte(strings.Repeat("b", 32))}
	h := newHandler(Deps{App: &app.App{Config: config.Config{}, Clock: clock.System(time.UTC), Log: slog.New(slog.NewTextHandler(sink, nil))}, SessionKeys: keys})
	started, served := make(chan struct{}), make(chan struct{})
	page := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(served)
		close(started)
		<-r.Context().Done() // the query waits on the database until the request ends
		h.serverError(w, r, fmt.Errorf("store: list students: %w", r.Context().Err()))
	})
	srv := httptest.NewServer(h.requestLogger(page))
	t.Cleanup(srv.Close)
	// The person closes the tab once the page is at work (a fixed time could end before a
	// loaded machine has even delivered the request, and then no page runs at all).
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-started:
		case <-time.After(30 * time.Second): // the page never ran: give up, the test fails below
		}
		cancel()
	}()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/students/", nil)
	if _, err := http.DefaultClient.Do(req); err == nil {
		t.Fatal("the client did not give up")
	}
	select {
	case <-served:
	case <-time.After(10 * time.Second):
		t.Fatal("the page never saw its request end")
	}
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(sink.String(), "msg=request"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no request line:\n%s", sink)
		}
	}
	log := sink.String()
	if strings.Contains(log, "level=ERROR") || !strings.Contains(log, `level=INFO msg="client went away"`) {
		t.Fatalf("log:\n%s", log)
	}
}
