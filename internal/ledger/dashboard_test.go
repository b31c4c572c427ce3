package ledger_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/reports"
	"github.com/sekolah/portal/internal/store"
)

var jakarta = i18n.Jakarta()

// clock is a settable clock for a ledger under test.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// people reads the roster as reports.People.
func people(t testing.TB, db *store.DB) reports.People {
	t.Helper()
	p := reports.People{}
	if err := db.AllStudents(context.Background(), func(s store.Student) error {
		p[s.NIS] = reports.Person{Name: s.Name, Class: s.Description}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return p
}

// reportsDashboard is what internal/reports computes from bills by walking them.
func reportsDashboard(t testing.TB, today time.Time, bills func(func(billing.Bill, error) bool), p reports.People) reports.Dashboard {
	t.Helper()
	d, err := reports.ComputeDashboard(today, jakarta, bills, p)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// sameDashboard fails t unless the ledger's dashboard has the figures of reports'.
func sameDashboard(t testing.TB, got ledger.Dashboard, want reports.Dashboard) {
	t.Helper()
	conv := func(s ledger.Sum) reports.Sum { return reports.Sum{Amount: s.Amount, Count: s.Count} }
	check := func(name string, g, w any) {
		t.Helper()
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s:\n got %+v\nwant %+v", name, g, w)
		}
	}
	check("today", got.Today, want.Today)
	check("bills", got.Bills, want.Bills)
	check("collected today", conv(got.CollectedToday), want.CollectedToday)
	check("collected month", conv(got.CollectedMonth), want.CollectedMonth)
	check("collected year", conv(got.CollectedYear), want.CollectedYear)
	check("not yet due", conv(got.NotYetDue), want.NotYetDue)
	check("overdue", conv(got.Overdue), want.Overdue)
	check("overdue penalty", got.OverduePenalty, want.OverduePenalty)
	check("outstanding", conv(got.Outstanding), want.Outstanding)
	check("expired", conv(got.Expired), want.Expired)
	check("due month", conv(got.DueMonth), want.DueMonth)
	check("paid due month", conv(got.PaidDueMonth), want.PaidDueMonth)
	check("accounts", got.Accounts, want.Accounts)
	var months []reports.MonthCollections
	for _, m := range got.Months {
		months = append(months, reports.MonthCollections{Month: m.Month, ByAccount: m.ByAccount, Total: m.Total})
	}
	check("months", months, want.Months)
	for i := range got.Buckets {
		g, w := got.Buckets[i], want.Buckets[i]
		check("bucket "+w.Key, reports.Bucket{Key: g.Key, Sum: conv(g.Sum), DueFrom: g.DueFrom, DueTo: g.DueTo}, w)
	}
	var classes []reports.ClassArrears
	for _, c := range got.TopClasses {
		classes = append(classes, reports.ClassArrears(c))
	}
	check("top classes", classes, want.TopClasses)
	var soon []reports.DueGroup
	for _, g := range got.DueSoon {
		soon = append(soon, reports.DueGroup{Due: g.Due, Name: g.Name, Account: g.Account, Sum: conv(g.Sum), Reminder: g.Reminder})
	}
	check("due soon", soon, want.DueSoon)
	var top []reports.StudentArrears
	for _, a := range got.TopArrears {
		top = append(top, reports.StudentArrears(a))
	}
	check("top arrears", top, want.TopArrears)
}

// TestDashboardMatchesReports: on a generated school of 8,000 components, the dashboard
// the ledger adds up in SQL has exactly the figures internal/reports computes by walking
// every component, on days that move every boundary (a month's first and last day, the
// school year's turn, a day when components expire).
func TestDashboardMatchesReports(t *testing.T) { eachEngine(t, testDashboardMatchesReports) }

func testDashboardMatchesReports(t *testing.T, engine string) {
	ctx := context.Background()
	db := openDB(t, engine)
	clk := &clock{t: ledger.GenToday}
	l, err := ledger.New(ctx, ledger.Config{DB: db, Location: jakarta, Now: clk.now})
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
