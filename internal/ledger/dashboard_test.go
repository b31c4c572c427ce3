package ledger_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/store"
)

var jakarta = i18n.Jakarta()

// testClock is a settable clock for a ledger under test.
type testClock struct{ t time.Time }

func (c *testClock) now() time.Time { return c.t }

// people reads the roster.
func people(t testing.TB, db *store.DB) roster {
	t.Helper()
	p := roster{}
	if err := db.AllStudents(context.Background(), func(s store.Student) error {
		p[s.NIS] = person{name: s.Name, class: s.Description}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return p
}

// reportsDashboard is the oracle's dashboard of bills (a walk of every one in memory).
func reportsDashboard(t testing.TB, today time.Time, bills func(func(billing.Bill, error) bool), p roster) ledger.Dashboard {
	t.Helper()
	d, err := oracleDashboard(today, jakarta, bills, p)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// sameDashboard fails t unless the ledger's dashboard has the oracle's figures.
func sameDashboard(t testing.TB, got, want ledger.Dashboard) {
	t.Helper()
	check := func(name string, g, w any) {
		t.Helper()
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s:\n got %+v\nwant %+v", name, g, w)
		}
	}
	check("today", got.Today, want.Today)
	check("bills", got.Bills, want.Bills)
	check("collected today", got.CollectedToday, want.CollectedToday)
	check("collected month", got.CollectedMonth, want.CollectedMonth)
	check("collected year", got.CollectedYear, want.CollectedYear)
	check("not yet due", got.NotYetDue, want.NotYetDue)
	check("overdue", got.Overdue, want.Overdue)
	check("overdue penalty", got.OverduePenalty, want.OverduePenalty)
	check("outstanding", got.Outstanding, want.Outstanding)
	check("expired", got.Expired, want.Expired)
	check("overdue students", got.OverdueStudents, want.OverdueStudents)
	check("expired students", got.ExpiredStudents, want.ExpiredStudents)
	check("arrears", got.Arrears, want.Arrears)
	check("arrears students", got.ArrearsStudents, want.ArrearsStudents)
	check("due month", got.DueMonth, want.DueMonth)
	check("paid due month", got.PaidDueMonth, want.PaidDueMonth)
	check("accounts", got.Accounts, want.Accounts)
	check("months", got.Months, want.Months)
	for i := range got.Buckets {
		check("bucket "+want.Buckets[i].Key, got.Buckets[i], want.Buckets[i])
	}
	check("top classes", got.TopClasses, want.TopClasses)
	check("due soon", got.DueSoon, want.DueSoon)
	check("top arrears", got.TopArrears, want.TopArrears)
}

// TestDashboardMatchesReports: on a generated school of 8,000 components, the dashboard
// the ledger adds up in SQL has exactly the figures the oracle computes by walking
// every component, on days that move every boundary (a month's first and last day, the
// school year's turn, a day when components expire).
func TestDashboardMatchesReports(t *testing.T) { eachEngine(t, testDashboardMatchesReports) }

func testDashboardMatchesReports(t *testing.T, engine string) {
	ctx := context.Background()
	db := openDB(t, engine)
	clk := &testClock{t: ledger.GenToday}
	l, err := ledger.New(ctx, ledger.Config{DB: db, Clock: clock.New(clk.now, jakarta)})
	if err != nil {
		t.Fatal(err)
	}
	if err := ledger.Generate(ctx, db, 8_000, jakarta); err != nil {
		t.Fatal(err)
	}
	p := people(t, db)
	for _, day := range []time.Time{
		ledger.GenToday,
		time.Date(2027, 3, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2027, 3, 31, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 6, 30, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 10, 11, 0, 0, 0, 0, time.UTC), // the day after September's SPP expires
		time.Date(2023, 2, 3, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 9, 14, 0, 0, 0, 0, time.UTC), // books due 15 August are 30, 60, 90 days late
		time.Date(2026, 9, 15, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 10, 14, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 10, 15, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 11, 13, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 11, 14, 0, 0, 0, 0, time.UTC),
	} {
		t.Run(day.Format(time.DateOnly), func(t *testing.T) {
			clk.t = day.Add(10*time.Hour - 7*time.Hour) // 10:00 in Jakarta
			got, err := l.DashboardOn(ctx, day)
			if err != nil {
				t.Fatal(err)
			}
			want := reportsDashboard(t, day, l.All(ctx, billing.Query{}), p)
			if want.Bills == 0 || want.Overdue.Count == 0 && day.Equal(ledger.GenToday) {
				t.Fatalf("the generated school has nothing to compare: %+v", want)
			}
			sameDashboard(t, got, want)
		})
	}
}
