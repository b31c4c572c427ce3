package reports_test

import (
	"context"
	"iter"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/i18n"
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

// fixture is a sandbox over real HTTP, the billing client, a roster and a Service.
type fixture struct {
	sb  *sandbox.Server
	c   *billing.Client
	db  *store.DB
	svc *reports.Service
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
	svc := reports.New(reports.Config{Source: c, Roster: db, Location: jakarta, Now: sb.Now, CacheTTL: time.Minute})
	return &fixture{sb: sb, c: c, db: db, svc: svc}
}

// syncRoster fills the roster from the billing service's student list (names and classes
// are what the reports take from it).
func (f *fixture) syncRoster(t testing.TB) {
	t.Helper()
	if n, err := students.MirrorList(context.Background(), f.c, f.db, f.sb.Now()); err != nil || n == 0 {
		t.Fatalf("roster from the student list: %d students, %v", n, err)
	}
}

// memSource is bills in memory, filtered like the service filters; searches by one
// payment day use an index so benchmarks measure the report, not the scan.
type memSource struct {
	bills []billing.Bill
	loc   *time.Location
	byDay map[time.Time][]int32 // indexes into bills
}

func newMemSource(bills []billing.Bill, loc *time.Location) *memSource {
	m := &memSource{bills: bills, loc: loc, byDay: map[time.Time][]int32{}}
	for i, b := range bills {
		if !b.PaidAt.IsZero() {
			d := billing.DayIn(b.PaidAt, loc)
			m.byDay[d] = append(m.byDay[d], int32(i))
		}
	}
	return m
}

func (m *memSource) match(b billing.Bill, q billing.Query) bool {
	if q.State != "" && b.State != q.State || q.AccountCode != "" && b.AccountCode != q.AccountCode {
		return false
	}
	if !q.PaidFrom.IsZero() || !q.PaidTo.IsZero() {
		if b.PaidAt.IsZero() {
			return false
		}
		d := billing.DayIn(b.PaidAt, m.loc)
		if !q.PaidFrom.IsZero() && d.Before(q.PaidFrom) || !q.PaidTo.IsZero() && d.After(q.PaidTo) {
			return false
		}
	}
	if !q.DueFrom.IsZero() && b.Due.Before(q.DueFrom) || !q.DueTo.IsZero() && b.Due.After(q.DueTo) {
		return false
	}
	return true
}

func (m *memSource) All(_ context.Context, q billing.Query) iter.Seq2[billing.Bill, error] {
	return func(yield func(billing.Bill, error) bool) {
		if !q.PaidFrom.IsZero() && q.PaidFrom.Equal(q.PaidTo) {
			for _, i := range m.byDay[q.PaidFrom] {
				if b := m.bills[i]; m.match(b, q) && !yield(b, nil) {
					return
				}
			}
			return
		}
		for _, b := range m.bills {
			if m.match(b, q) && !yield(b, nil) {
				return
			}
		}
	}
}

func (m *memSource) AllForStudent(ctx context.Context, nis string, q billing.Query) iter.Seq2[billing.Bill, error] {
	return func(yield func(billing.Bill, error) bool) {
		for b, err := range m.All(ctx, q) {
			if b.NIS == nis && !yield(b, err) {
				return
			}
		}
	}
}

// memRoster is a roster in memory.
type memRoster map[string]store.Student

func (r memRoster) AllStudents(_ context.Context, fn func(store.Student) error) error {
	for _, s := range r {
		if err := fn(s); err != nil {
			return err
		}
	}
	return nil
}

func (r memRoster) StudentsByNIS(_ context.Context, nis []string) (map[string]store.Student, error) {
	out := map[string]store.Student{}
	for _, n := range nis {
		if s, ok := r[n]; ok {
			out[n] = s
		}
	}
	return out, nil
}

// failAll makes every later request to the sandbox fail with 503.
func failAll() sandbox.Faults { return sandbox.Faults{ErrorRate: 1, Status: 503} }
