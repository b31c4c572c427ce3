package metrics

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/metrics/metricstest"
)

// The error label is internal/billing's classification, never the service's words.
func TestErrorKind(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		err  error
		want string
	}{
		{nil, "none"},
		{&billing.APIError{StatusCode: 404}, "not_found"},
		{&billing.APIError{StatusCode: 403}, "unauthorized"},
		{&billing.APIError{StatusCode: 422}, "validation"},
		{fmt.Errorf("checkout: %w", &billing.APIError{StatusCode: 503}), "unavailable"},
		{&billing.APIError{StatusCode: 409}, "other"},
		{fmt.Errorf("billing: GET /bill: %w", context.Canceled), "canceled"},
		{fmt.Errorf("%w: empty NIS", billing.ErrValidation), "validation"},
		{context.DeadlineExceeded, "timeout"},
		{errors.New("disk full"), "other"},
	} {
		if got := ErrorKind(tt.err); got != tt.want {
			t.Errorf("ErrorKind(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

// Labels stay few whatever a client sends: its method, a path no route matches.
func TestRequestLabelsAreBounded(t *testing.T) {
	t.Parallel()
	m, err := New(Config{Clock: clock.Fixed(time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC), time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	m.Request("", "BREW", 418, time.Millisecond)
	m.Request("/students/{nis}", "GET", 0, time.Millisecond) // nothing written: net/http's 200
	m.BillingCall(billing.Call{Endpoint: "Pay", Status: 200, Err: &billing.APIError{StatusCode: 400}, Attempts: 1})
	m.Ledger().SyncRan(ledger.RunIncremental, ledger.ProblemTimeout, time.Second)
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	s := metricstest.Get(t, srv.URL+Path)
	if s.Value("portal_http_request_duration_seconds", "route", "unmatched", "method", "other", "status", "4xx") != 1 ||
		s.Value("portal_http_request_duration_seconds", "route", "/students/{nis}", "status", "2xx") != 1 {
		t.Errorf("requests: %v", s["portal_http_request_duration_seconds"])
	}
	// A refusal a gateway put in a 200's envelope counts as the refusal.
	if s.Value("portal_billing_call_duration_seconds", "endpoint", "Pay", "status", "4xx", "error", "validation") != 1 {
		t.Errorf("calls: %v", s["portal_billing_call_duration_seconds"])
	}
	if s.Value("portal_ledger_sync_runs_total", "kind", "incremental", "outcome", "timeout") != 1 {
		t.Errorf("sync runs: %v", s["portal_ledger_sync_runs_total"])
	}
	// Nothing to read yet: the scrape still answers, and says the database was read.
	if s.Value("portal_database_up") != 1 {
		t.Errorf("database up: %v", s.Value("portal_database_up"))
	}
	res, err := http.Get(srv.URL + "/")
	if err != nil || res.StatusCode != http.StatusNotFound {
		t.Errorf("GET / on the metrics' address: %v %v", res.StatusCode, err)
	}
	res.Body.Close()
}

// brokenLedger fails every read.
type brokenLedger struct{}

func (brokenLedger) Freshness(context.Context) (ledger.Freshness, error) {
	return ledger.Freshness{}, errors.New("db gone")
}
func (brokenLedger) Counts(context.Context) (int, int, error) { return 0, 0, errors.New("db gone") }
func (brokenLedger) CallbackTally(context.Context) (ledger.CallbackTally, error) {
	return ledger.CallbackTally{}, errors.New("db gone")
}

// A scrape whose reads fail still answers, with portal_database_up 0 for an alert.
func TestScrapeWithTheDatabaseDown(t *testing.T) {
	t.Parallel()
	m, err := New(Config{Clock: clock.Fixed(time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC), time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	m.Read(Sources{Ledger: brokenLedger{}})
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	s := metricstest.Get(t, srv.URL+Path)
	if !s.Has("portal_database_up") || s.Value("portal_database_up") != 0 || s.Has("portal_ledger_sync_lag_seconds") || !s.Has("go_goroutines") {
		t.Errorf("scrape with the database down: up %v, lag there %v", s.Value("portal_database_up"), s.Has("portal_ledger_sync_lag_seconds"))
	}
	if _, err := New(Config{}); err == nil || !strings.Contains(err.Error(), "clock") {
		t.Errorf("metrics without a clock: %v", err)
	}
}
