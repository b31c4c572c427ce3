package ledger_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/ledger"
)

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// TestReportsMatchReports: the outstanding, payments and accounts reports the ledger
// answers in SQL have exactly the figures the oracle computes by walking the same
// components (read through the ledger's own iterator).
func TestReportsMatchReports(t *testing.T) { eachEngine(t, testReportsMatchReports) }

func testReportsMatchReports(t *testing.T, engine string) {
	ctx := context.Background()
	db := openDB(t, engine)
	clk := &testClock{t: ledger.GenToday.Add(3 * time.Hour)}
	l, err := ledger.New(ctx, ledger.Config{DB: db, Clock: clock.New(clk.now, jakarta)})
	if err != nil {
		t.Fatal(err)
	}
	if err := ledger.Generate(ctx, db, 8_000, jakarta); err != nil {
		t.Fatal(err)
	}
	p := people(t, db)

	// Days on which components sit on every age bucket's edge (books due 15 August
	// stay payable a year: 30/31, 60/61 and 90/91 days late fall on these days).
	for _, d := range []time.Time{ledger.GenToday, day(2027, 3, 10), day(2026, 9, 14), day(2026, 9, 15), day(2026, 10, 14), day(2026, 10, 15), day(2026, 11, 13), day(2026, 11, 14)} {
		at := d.Add(time.Hour)
		clk.t = at
		today := billing.DayIn(at, jakarta)
		var bills []billing.Bill // as the service would answer them today
		for b, err := range l.All(ctx, billing.Query{}) {
			if err != nil {
				t.Fatal(err)
			}
			bills = append(bills, b)
		}
		for _, f := range []ledger.OutstandingFilter{
			{},
			{Class: "Kelas 7A"},
			{Class: ledger.NoClass},
			{Account: "SPP"},
			{DueTo: day(2027, 3, 9)},
			{DueFrom: day(2027, 3, 1), DueTo: day(2027, 4, 30), Account: "SPP"},
			{Overdue: true},
			{Overdue: true, Class: "Kelas 7A", Account: "SPP"},
		} {
			got, err := l.Outstanding(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			want := oracleOutstanding(bills, f, today, p)
			if len(want.Rows) == 0 && f.Class != ledger.NoClass {
				t.Fatalf("%+v: nothing outstanding to compare", f)
			}
			if !reflect.DeepEqual(got.Rows, want.Rows) {
				t.Errorf("outstanding %+v on %v: %d rows, want %d", f, at, len(got.Rows), len(want.Rows))
			}
			if got.Total != want.Total {
				t.Errorf("outstanding %+v total %+v, want %+v", f, got.Total, want.Total)
			}
		}

		for _, f := range []struct {
			from, to time.Time
			account  string
		}{
			{day(2027, 3, 1), day(2027, 3, 15), ""},
			{day(2026, 7, 1), day(2027, 3, 15), "BCA"},
			{day(2025, 9, 1), day(2025, 10, 31), ""},
			{day(2026, 8, 1), day(2026, 8, 31), "SPP"},
		} {
			wantRows, wantDays, wantTotal := oraclePayments(bills, f.from, f.to, f.account, jakarta, p)
			if wantTotal.Count == 0 {
				t.Fatalf("%+v: no payments to compare", f)
			}
			var rows []ledger.PaymentRow
			for r, err := range l.Payments(ctx, f.from, f.to, f.account) {
				if err != nil {
					t.Fatal(err)
				}
				rows = append(rows, r)
			}
			if !reflect.DeepEqual(rows, wantRows) {
				t.Errorf("payments %+v: %d rows, want %d", f, len(rows), len(wantRows))
				for i := range min(len(rows), len(wantRows)) {
					if rows[i] != wantRows[i] {
						t.Errorf("first difference at %d:\n got %+v\nwant %+v", i, rows[i], wantRows[i])
						break
					}
				}
			}
			days, total, err := l.PaymentDays(ctx, f.from, f.to, f.account)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(days, wantDays) || total != wantTotal {
				t.Errorf("payment days %+v: total %+v, want %+v", f, total, wantTotal)
			}
		}

		for _, f := range [][2]time.Time{{day(2027, 2, 1), day(2027, 3, 15)}, {day(2021, 1, 1), day(2021, 12, 31)}} {
			got, err := l.Accounts(ctx, f[0], f[1])
			if err != nil {
				t.Fatal(err)
			}
			wantRows, wantTotal := oracleAccounts(bills, f[0], f[1], today, jakarta)
			if !reflect.DeepEqual(got.Rows, wantRows) || got.Total != wantTotal {
				t.Errorf("accounts %+v:\n got %+v\nwant %+v", f, got.Rows, wantRows)
			}
		}
	}
}
