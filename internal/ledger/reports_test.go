package ledger_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/reports"
)

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// TestReportsMatchReports: the outstanding, payments and accounts reports the ledger
// answers in SQL have exactly the figures internal/reports computes by walking the same
// components (here read through the ledger's own iterator, as reports will).
func TestReportsMatchReports(t *testing.T) { eachEngine(t, testReportsMatchReports) }

func testReportsMatchReports(t *testing.T, engine string) {
	ctx := context.Background()
	db := openDB(t, engine)
	clk := &clock{t: ledger.GenToday.Add(3 * time.Hour)}
	l, err := ledger.New(ctx, ledger.Config{DB: db, Location: jakarta, Now: clk.now})
	if err != nil {
		t.Fatal(err)
	}
	if err := ledger.Generate(ctx, db, 8_000, jakarta); err != nil {
		t.Fatal(err)
	}
	svc := reports.New(reports.Config{Source: l, Roster: db, Location: jakarta, Now: clk.now, CacheTTL: time.Nanosecond})

	// Days on which components sit on every age bucket's edge (books due 15 August
	// stay payable a year: 30/31, 60/61 and 90/91 days late fall on these days).
	for _, d := range []time.Time{ledger.GenToday, day(2027, 3, 10), day(2026, 9, 14), day(2026, 9, 15), day(2026, 10, 14), day(2026, 10, 15), day(2026, 11, 13), day(2026, 11, 14)} {
		at := d.Add(time.Hour)
		clk.t = at
		for _, f := range []ledger.OutstandingFilter{
			{},
			{Class: "Kelas 7A"},
			{Class: ledger.NoClass},
			{Account: "SPP"},
			{DueTo: day(2027, 3, 9)},
			{DueFrom: day(2027, 3, 1), DueTo: day(2027, 4, 30), Account: "SPP"},
		} {
			got, err := l.Outstanding(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			want, err := svc.Outstanding(ctx, reports.OutstandingFilter(f), true)
			if err != nil {
				t.Fatal(err)
			}
			if len(want.Value.Rows) == 0 && f.Class != ledger.NoClass {
				t.Fatalf("%+v: nothing outstanding to compare", f)
			}
			var rows []reports.OutstandingRow
			for _, r := range got.Rows {
				rows = append(rows, reports.OutstandingRow{NIS: r.NIS, Name: r.Name, Class: r.Class, Count: r.Count,
					Buckets: r.Buckets, Penalty: r.Penalty, Total: r.Total, OldestDue: r.OldestDue})
			}
			if len(rows) != len(want.Value.Rows) || len(rows) > 0 && !reflect.DeepEqual(rows, want.Value.Rows) {
				t.Errorf("outstanding %+v on %v: %d rows, want %d", f, at, len(rows), len(want.Value.Rows))
			}
			tot := got.Total
			if (reports.OutstandingRow{Count: tot.Count, Buckets: tot.Buckets, Penalty: tot.Penalty, Total: tot.Total}) != want.Value.Total {
				t.Errorf("outstanding %+v total %+v, want %+v", f, tot, want.Value.Total)
			}
		}

		for _, f := range []reports.PaymentsFilter{
			{From: day(2027, 3, 1), To: day(2027, 3, 15)},
			{From: day(2026, 7, 1), To: day(2027, 3, 15), Account: "BCA"},
			{From: day(2025, 9, 1), To: day(2025, 10, 31)},
			{From: day(2026, 8, 1), To: day(2026, 8, 31), Account: "SPP"},
		} {
			want, err := svc.Payments(ctx, f, true)
			if err != nil {
				t.Fatal(err)
			}
			if want.Value.Total.Count == 0 {
				t.Fatalf("%+v: no payments to compare", f)
			}
			var rows []reports.PaymentRow
			for p, err := range l.Payments(ctx, f.From, f.To, f.Account) {
				if err != nil {
					t.Fatal(err)
				}
				rows = append(rows, reports.PaymentRow(p))
			}
			if !reflect.DeepEqual(rows, want.Value.Rows) {
				t.Errorf("payments %+v: %d rows, want %d", f, len(rows), len(want.Value.Rows))
				for i := range min(len(rows), len(want.Value.Rows)) {
					if rows[i] != want.Value.Rows[i] {
						t.Errorf("first difference at %d:\n got %+v\nwant %+v", i, rows[i], want.Value.Rows[i])
						break
					}
				}
			}
			days, total, err := l.PaymentDays(ctx, f.From, f.To, f.Account)
			if err != nil {
				t.Fatal(err)
			}
			var wantDays []ledger.DayTotal
			for _, d := range want.Value.Days {
				wantDays = append(wantDays, ledger.DayTotal(d))
			}
			if !reflect.DeepEqual(days, wantDays) || total != ledger.DayTotal(want.Value.Total) {
				t.Errorf("payment days %+v: total %+v, want %+v", f, total, want.Value.Total)
			}
		}

		for _, f := range []reports.PaymentsFilter{
			{From: day(2027, 2, 1), To: day(2027, 3, 15)},
			{From: day(2021, 1, 1), To: day(2021, 12, 31)},
		} {
			got, err := l.Accounts(ctx, f.From, f.To)
			if err != nil {
				t.Fatal(err)
			}
			want, err := svc.Accounts(ctx, f, true)
			if err != nil {
				t.Fatal(err)
			}
			var rows []reports.AccountRow
			for _, r := range got.Rows {
				rows = append(rows, reports.AccountRow(r))
			}
			if !reflect.DeepEqual(rows, want.Value.Rows) || reports.AccountRow(got.Total) != want.Value.Total {
				t.Errorf("accounts %+v:\n got %+v\nwant %+v", f, rows, want.Value.Rows)
			}
		}
	}
}
