package ledger_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/component"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/reports"
	"github.com/sekolah/portal/internal/store"
)

// The small school of internal/reports' hand-computed tests (figures_test.go), built the
// same way at the sandbox: the ledger, read by internal/reports as its Source, must
// give every one of those figures unchanged. Today is Monday 15 March 2027, 10:00 WIB.
//
//	    NIS   account  component             amount     penalty  due     expiry  fate
//	A   1001  SPP      SPP Februari          500.000    25.000   10 Feb  10 Apr  paid on time 8 Feb
//	B   1001  SPP      SPP Maret             500.000    25.000   10 Mar  10 May  paid late 12 Mar: 525.000
//	H   1001  BCA      Study Tour          2.000.000         0   30 Apr  31 May  not yet due
//	C   1002  SPP      SPP Februari          500.000    25.000   10 Feb  10 Apr  unpaid, 33 days late
//	D   1002  BCA      Uang Kegiatan         800.000    50.000   15 Jan  15 Feb  unpaid, expired
//	G   1002  BCA      Uang Kegiatan Maret   300.000    10.000    1 Mar  30 Apr  paid early 25 Feb
//	E   1003  BCA      Uang Buku           1.200.000         0   20 Mar  30 Apr  not yet due (in 5 days)
//	F   1003  SPP      SPP Maret             500.000    25.000   10 Mar  10 May  paid late today: 525.000
//	I   1003  SPP      SPP Desember 2026     400.000    20.000   10 Dec  30 Jun  unpaid, 95 days late
//
// 1001 is in class 7A and 1002 in 7B on the roster; 1003 is not on the roster.
func smallSchool(t *testing.T) *env {
	t.Helper()
	wib := func(y int, m time.Month, d, hh, mm int) time.Time { return time.Date(y, m, d, hh, mm, 0, 0, jakarta) }
	e := newEnv(t, wib(2027, time.January, 2, 9, 0))
	ctx := context.Background()
	if _, err := e.c.CreateStudents(ctx, []billing.Student{
		{NIS: "1001", Name: "Ani Lestari", Description: "Kelas 7A", Phone: "081200000001"},
		{NIS: "1002", Name: "Budi Santoso", Description: "Kelas 7B", Phone: "081200000002"},
		{NIS: "1003", Name: "Citra Dewi", Description: "Kelas 8A", Phone: "081200000003"},
	}); err != nil {
		t.Fatal(err)
	}
	if err := e.db.UpsertStudents(ctx, []store.Student{
		{NIS: "1001", Name: "Ani Lestari", Description: "Kelas 7A", Source: store.SourcePortal},
		{NIS: "1002", Name: "Budi Santoso", Description: "Kelas 7B", Source: store.SourcePortal},
	}); err != nil {
		t.Fatal(err)
	}
	comp := func(nis, account, name string, amount, penalty int64, due, expiry time.Time) billing.ComponentInput {
		return billing.ComponentInput{NIS: nis, AccountCode: account, Name: name, Amount: amount, Penalty: penalty, Due: due, Expiry: expiry}
	}
	created, err := e.c.CreateComponents(ctx, []billing.ComponentInput{
		comp("1001", "SPP", "SPP Februari", 500_000, 25_000, day(2027, 2, 10), day(2027, 4, 10)),
		comp("1001", "SPP", "SPP Maret", 500_000, 25_000, day(2027, 3, 10), day(2027, 5, 10)),
		comp("1001", "BCA", "Study Tour", 2_000_000, 0, day(2027, 4, 30), day(2027, 5, 31)),
		comp("1002", "SPP", "SPP Februari", 500_000, 25_000, day(2027, 2, 10), day(2027, 4, 10)),
		comp("1002", "BCA", "Uang Kegiatan", 800_000, 50_000, day(2027, 1, 15), day(2027, 2, 15)),
		comp("1002", "BCA", "Uang Kegiatan Maret", 300_000, 10_000, day(2027, 3, 1), day(2027, 4, 30)),
		comp("1003", "BCA", "Uang Buku", 1_200_000, 0, day(2027, 3, 20), day(2027, 4, 30)),
		comp("1003", "SPP", "SPP Maret", 500_000, 25_000, day(2027, 3, 10), day(2027, 5, 10)),
		comp("1003", "SPP", "SPP Desember 2026", 400_000, 20_000, day(2026, 12, 10), day(2027, 6, 30)),
	})
	if err != nil {
		t.Fatal(err)
	}
	id := map[string]string{}
	for i, k := range []string{"A", "B", "H", "C", "D", "G", "E", "F", "I"} {
		id[k] = created[i].ComponentID
	}
	pay := func(at time.Time, nis, ref, key string) {
		t.Helper()
		e.sb.SetClock(at)
		if _, err := e.c.Pay(ctx, billing.Payment{NIS: nis, RefNumber: ref, ComponentIDs: []string{id[key]}}); err != nil {
			t.Fatalf("pay %s: %v", key, err)
		}
	}
	pay(wib(2027, 2, 8, 9, 0), "1001", "REF-A", "A")
	pay(wib(2027, 2, 25, 11, 0), "1002", "REF-G", "G")
	pay(wib(2027, 3, 12, 14, 0), "1001", "REF-B", "B")
	pay(wib(2027, 3, 15, 8, 30), "1003", "=HYPERLINK(\"x\")", "F")
	e.sb.SetClock(wib(2027, 3, 15, 10, 0))
	return e
}

// TestHandComputedFromLedger: internal/reports' hand-computed figures, with the ledger
// as the reports' source and its components read into it from the service. (The roster
// is left as the reports test sets it: a student sync would put 1003 in class 8A.)
func TestHandComputedFromLedger(t *testing.T) {
	t.Parallel()
	e := smallSchool(t)
	ctx := context.Background()
	if _, err := e.l.Upsert(ctx, e.walk()); err != nil {
		t.Fatal(err)
	}
	svc := reports.New(reports.Config{Ledger: e.l, Roster: e.db})
	got, err := svc.Dashboard(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	d := got.Value
	sums := []struct {
		name string
		got  ledger.Sum
		want ledger.Sum
	}{
		{"collected today", d.CollectedToday, ledger.Sum{Amount: 525_000, Count: 1}},
		{"collected month", d.CollectedMonth, ledger.Sum{Amount: 1_050_000, Count: 2}},
		{"collected year", d.CollectedYear, ledger.Sum{Amount: 1_850_000, Count: 4}},
		{"not yet due", d.NotYetDue, ledger.Sum{Amount: 3_200_000, Count: 2}},
		{"overdue", d.Overdue, ledger.Sum{Amount: 945_000, Count: 2}},
		{"outstanding", d.Outstanding, ledger.Sum{Amount: 4_145_000, Count: 4}},
		{"expired", d.Expired, ledger.Sum{Amount: 800_000, Count: 1}},
		{"due this month", d.DueMonth, ledger.Sum{Amount: 2_500_000, Count: 4}},
		{"paid of due this month", d.PaidDueMonth, ledger.Sum{Amount: 1_300_000, Count: 3}},
		{"bucket 31-60", d.Buckets[ledger.Bucket31to60].Sum, ledger.Sum{Amount: 525_000, Count: 1}},
		{"bucket >90", d.Buckets[ledger.BucketOver90].Sum, ledger.Sum{Amount: 420_000, Count: 1}},
	}
	for _, s := range sums {
		if s.got != s.want {
			t.Errorf("%s = %+v, want %+v", s.name, s.got, s.want)
		}
	}
	wantTop := []ledger.StudentArrears{
		{NIS: "1002", Name: "Budi Santoso", Class: "Kelas 7B", Amount: 525_000, Count: 1, OldestDue: day(2027, 2, 10), DaysLate: 33},
		{NIS: "1003", Name: "Citra Dewi", Class: "", Amount: 420_000, Count: 1, OldestDue: day(2026, 12, 10), DaysLate: 95},
	}
	if !slices.Equal(d.TopArrears, wantTop) {
		t.Errorf("top arrears = %+v", d.TopArrears)
	}

	// The oracle's walk of the service: the same figures.
	walk := e.walk()
	sameDashboard(t, d, reportsDashboard(t, d.Today, func(yield func(billing.Bill, error) bool) {
		for _, b := range walk {
			if !yield(b, nil) {
				return
			}
		}
	}, people(t, e.db)))

	// And the reports, through the ledger.
	pay, err := svc.Payments(ctx, reports.PaymentsFilter{From: day(2027, 3, 1), To: day(2027, 3, 15)}, false)
	if err != nil {
		t.Fatal(err)
	}
	if pay.Value.Total != (ledger.DayTotal{Count: 2, Amount: 1_000_000, Penalty: 50_000, Paid: 1_050_000}) || pay.Value.Rows[0].Ref != "REF-B" {
		t.Errorf("payments = %+v", pay.Value.Total)
	}
	out, err := svc.Outstanding(ctx, ledger.OutstandingFilter{}, false)
	if err != nil {
		t.Fatal(err)
	}
	c := out.Value.Rows[1] // largest overdue first: 1002 (525.000), 1003 (420.000), 1001
	if want := (ledger.OutstandingRow{NIS: "1003", Name: "Citra Dewi", Count: 2,
		Buckets: [ledger.NumBuckets]int64{1_200_000, 0, 0, 0, 420_000}, Penalty: 20_000, Total: 1_620_000, OldestDue: day(2026, 12, 10), DaysLate: 95,
		Overdue: 420_000, OverdueCount: 1}); c != want {
		t.Errorf("1003 = %+v", c)
	}
	st, err := svc.Statement(ctx, "1002", false)
	if err != nil {
		t.Fatal(err)
	}
	var statuses []component.Status
	for _, r := range st.Value.Rows {
		statuses = append(statuses, r.Status)
	}
	if !slices.Equal(statuses, []component.Status{component.StatusExpired, component.StatusOverdue, component.StatusPaid}) || st.Value.Owed != 525_000 {
		t.Errorf("1002 statuses %v owed %d", statuses, st.Value.Owed)
	}
	acc, err := svc.Accounts(ctx, reports.PaymentsFilter{From: day(2027, 2, 1), To: day(2027, 3, 15)}, false)
	if err != nil {
		t.Fatal(err)
	}
	if tot := acc.Value.Total; tot.Paid != 1_850_000 || tot.Outstanding != 4_145_000 || tot.Payments != 4 {
		t.Errorf("accounts total = %+v", tot)
	}
	if _, err := svc.Statement(ctx, "9999", false); err == nil {
		t.Error("unknown NIS gave no error")
	}
}
