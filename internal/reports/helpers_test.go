package reports_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/reports"
	"github.com/sekolah/portal/internal/sandbox"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/store/storetest"
	"github.com/sekolah/portal/internal/students"
)

var jakarta = i18n.Jakarta()

// wib is a wall-clock time in Jakarta.
func wib(y int, m time.Month, d, hh, mm int) time.Time {
	return time.Date(y, m, d, hh, mm, 0, 0, jakarta)
}

// day is a calendar day as billing sends it.
func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// fixture is a sandbox over real HTTP, the billing client, a roster, the ledger on it
// and a Service reading the ledger.
type fixture struct {
	sb  *sandbox.Server
	c   *billing.Client
	db  *store.DB
	l   *ledger.Ledger
	svc *synced
}

func startFixture(t testing.TB, now time.Time, demo bool, accounts ...string) *fixture {
	t.Helper()
	sb, err := sandbox.New(sandbox.Options{Username: "portal", Password: "issued", Location: jakarta, Accounts: accounts, Now: now, Demo: demo})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(sb)
	t.Cleanup(func() {
		ts.Close()
		sb.Close()
	})
	c, err := billing.New(billing.Config{BaseURL: ts.URL, Username: "portal", Password: "issued", Location: jakarta,
		Now: sb.Now, RetryBase: time.Millisecond, RetryMax: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	db := storetest.OpenTest(t)
	l, err := ledger.New(context.Background(), ledger.Config{DB: db, Clock: clock.New(sb.Now, jakarta)})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{sb: sb, c: c, db: db, l: l}
	f.svc = &synced{Service: reports.New(reports.Config{Ledger: l, Roster: db}), f: f, t: t}
	return f
}

// load reads every component the service holds into the ledger, as a sync would, but
// leaves the roster as the test set it (a sync would also fill the roster from the
// service's student list: the hand-computed school keeps 1003 off the roster).
func (f *fixture) load(t testing.TB) {
	t.Helper()
	var bills []billing.Bill
	for b, err := range f.c.All(context.Background(), billing.Query{}) {
		if err != nil {
			t.Fatal(err)
		}
		bills = append(bills, b)
	}
	if _, err := f.l.Upsert(context.Background(), bills); err != nil {
		t.Fatal(err)
	}
}

// synced is the fixture's Service: the tests write at the service directly, so each
// read first brings the ledger up to date with the service (what the portal's sync and
// writer do), then asks the Service.
type synced struct {
	*reports.Service
	f *fixture
	t testing.TB
}

func (s *synced) Dashboard(ctx context.Context, refresh bool) (reports.Result[ledger.Dashboard], error) {
	s.f.load(s.t)
	return s.Service.Dashboard(ctx, refresh)
}

func (s *synced) Payments(ctx context.Context, f reports.PaymentsFilter, refresh bool) (reports.Result[reports.PaymentsReport], error) {
	s.f.load(s.t)
	return s.Service.Payments(ctx, f, refresh)
}

func (s *synced) Outstanding(ctx context.Context, f ledger.OutstandingFilter, refresh bool) (reports.Result[ledger.OutstandingReport], error) {
	s.f.load(s.t)
	return s.Service.Outstanding(ctx, f, refresh)
}

func (s *synced) Statement(ctx context.Context, nis string, refresh bool) (reports.Result[reports.Statement], error) {
	s.f.load(s.t)
	return s.Service.Statement(ctx, nis, refresh)
}

func (s *synced) Accounts(ctx context.Context, f reports.PaymentsFilter, refresh bool) (reports.Result[reports.AccountsReport], error) {
	s.f.load(s.t)
	return s.Service.Accounts(ctx, f, refresh)
}

func (s *synced) ExportPayments(ctx context.Context, f reports.PaymentsFilter, ex reports.Export) error {
	s.f.load(s.t)
	return s.Service.ExportPayments(ctx, f, ex)
}

func (s *synced) ExportOutstanding(ctx context.Context, f ledger.OutstandingFilter, ex reports.Export) error {
	s.f.load(s.t)
	return s.Service.ExportOutstanding(ctx, f, ex)
}

func (s *synced) ExportStatement(ctx context.Context, nis string, ex reports.Export) error {
	s.f.load(s.t)
	return s.Service.ExportStatement(ctx, nis, ex)
}

func (s *synced) ExportAccounts(ctx context.Context, f reports.PaymentsFilter, ex reports.Export) error {
	s.f.load(s.t)
	return s.Service.ExportAccounts(ctx, f, ex)
}

// syncRoster fills the roster from the billing service's student list (names and classes
// are what the reports take from it).
func (f *fixture) syncRoster(t testing.TB) {
	t.Helper()
	if n, err := students.MirrorList(context.Background(), f.c, f.db, f.sb.Now()); err != nil || n == 0 {
		t.Fatalf("roster from the student list: %d students, %v", n, err)
	}
}

// memoryLedger is a Service over a ledger holding bills and a roster made in memory
// (for what the sandbox cannot hold: formula-like names, a hundred thousand payments),
// on day now, with the planner's statistics a live ledger of that size has.
func memoryLedger(t testing.TB, bills []billing.Bill, roster []store.Student, now time.Time) (*reports.Service, *ledger.Ledger) {
	t.Helper()
	svc, l, _ := memoryStore(t, bills, roster, now)
	return svc, l
}

// memoryStore is memoryLedger with its database.
func memoryStore(t testing.TB, bills []billing.Bill, roster []store.Student, now time.Time) (*reports.Service, *ledger.Ledger, *store.DB) {
	t.Helper()
	ctx := context.Background()
	db := storetest.OpenTest(t)
	l, err := ledger.New(ctx, ledger.Config{DB: db, Clock: clock.New(func() time.Time { return now }, jakarta)})
	if err != nil {
		t.Fatal(err)
	}
	for start := 0; start < len(bills); start += 5000 {
		if _, err := l.Upsert(ctx, bills[start:min(start+5000, len(bills))]); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.UpsertStudents(ctx, roster); err != nil {
		t.Fatal(err)
	}
	// Analysed as a live ledger is (after its first fill, each start and each reconcile).
	if err := l.Optimize(ctx); err != nil {
		t.Fatal(err)
	}
	return reports.New(reports.Config{Ledger: l, Roster: db}), l, db
}
