package ledger_test

import (
	"context"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/ledger"
)

// TestDashboardLeadHandComputed: the dashboard's three lead figures on a school small
// enough to add up by hand. Today is Monday 15 March 2027, 10:00 WIB.
//
//	    NIS   component      amount     penalty  due     expiry  fate
//	P1  2001  SPP Maret      500.000    25.000   10 Mar  10 May  paid 12 Mar, 525.000, REF-1
//	P2  2001  Uang Buku      300.000         0   20 Mar  30 Apr  paid 12 Mar, 300.000, REF-1 (same receipt)
//	P8  2001  SPP Februari   500.000    25.000   10 Feb  10 Apr  paid 5 Feb, REF-0 (last month)
//	P3  2002  SPP Maret      500.000    25.000   10 Mar  10 May  unpaid, 5 days late: 525.000
//	P4  2002  SPP Februari   500.000    25.000   10 Feb  10 Apr  unpaid, 33 days late: 525.000
//	P5  2003  SPP Maret      500.000    25.000   10 Mar  10 May  paid today, 525.000, REF-2
//	P6  2003  Study Tour   1.000.000         0   25 Mar  30 Apr  not yet due
//	P7  2003  SPP Januari    400.000    20.000   10 Jan  10 Feb  unpaid, expired
//
// Overdue: P3 + P4 = 1.050.000, 2 components of 1 student (P7 is expired, not overdue).
// This month's receipts: REF-1 and REF-2 = 2 payments (3 components), 1.350.000.
// Collection rate: of the components due in March (P1, P2, P3, P5, P6: 2.800.000 at face
// amount) the paid ones (P1, P2, P5: 1.300.000) = 46,4%.
func TestDashboardLeadHandComputed(t *testing.T) { eachEngine(t, testDashboardLeadHandComputed) }

func testDashboardLeadHandComputed(t *testing.T, engine string) {
	wib := func(y int, m time.Month, d, hh, mm int) time.Time { return time.Date(y, m, d, hh, mm, 0, 0, jakarta) }
	e := newEnvOn(t, engine, wib(2027, time.January, 2, 9, 0))
	ctx := context.Background()
	if _, err := e.c.CreateStudents(ctx, []billing.Student{
		{NIS: "2001", Name: "Dewi Anggraini", Description: "Kelas 7A", Phone: "081200000011"},
		{NIS: "2002", Name: "Eko Prasetyo", Description: "Kelas 7B", Phone: "081200000012"},
		{NIS: "2003", Name: "Fitri Handayani", Description: "Kelas 8A", Phone: "081200000013"},
	}); err != nil {
		t.Fatal(err)
	}
	comp := func(nis, account, name string, amount, penalty int64, due, expiry time.Time) billing.ComponentInput {
		return billing.ComponentInput{NIS: nis, AccountCode: account, Name: name, Amount: amount, Penalty: penalty, Due: due, Expiry: expiry}
	}
	created, err := e.c.CreateComponents(ctx, []billing.ComponentInput{
		comp("2001", "SPP", "SPP Maret", 500_000, 25_000, day(2027, 3, 10), day(2027, 5, 10)),
		comp("2001", "BCA", "Uang Buku", 300_000, 0, day(2027, 3, 20), day(2027, 4, 30)),
		comp("2001", "SPP", "SPP Februari", 500_000, 25_000, day(2027, 2, 10), day(2027, 4, 10)),
		comp("2002", "SPP", "SPP Maret", 500_000, 25_000, day(2027, 3, 10), day(2027, 5, 10)),
		comp("2002", "SPP", "SPP Februari", 500_000, 25_000, day(2027, 2, 10), day(2027, 4, 10)),
		comp("2003", "SPP", "SPP Maret", 500_000, 25_000, day(2027, 3, 10), day(2027, 5, 10)),
		comp("2003", "BCA", "Study Tour", 1_000_000, 0, day(2027, 3, 25), day(2027, 4, 30)),
		comp("2003", "SPP", "SPP Januari", 400_000, 20_000, day(2027, 1, 10), day(2027, 2, 10)),
	})
	if err != nil {
		t.Fatal(err)
	}
	id := map[string]string{}
	for i, k := range []string{"P1", "P2", "P8", "P3", "P4", "P5", "P6", "P7"} {
		id[k] = created[i].ComponentID
	}
	pay := func(at time.Time, nis, ref string, keys ...string) {
		t.Helper()
		e.sb.SetClock(at)
		p := billing.Payment{NIS: nis, RefNumber: ref}
		for _, k := range keys {
			p.ComponentIDs = append(p.ComponentIDs, id[k])
		}
		if _, err := e.c.Pay(ctx, p); err != nil {
			t.Fatalf("pay %v: %v", keys, err)
		}
	}
	pay(wib(2027, 2, 5, 9, 0), "2001", "REF-0", "P8")
	pay(wib(2027, 3, 12, 14, 0), "2001", "REF-1", "P1", "P2")
	pay(wib(2027, 3, 15, 9, 0), "2003", "REF-2", "P5")
	e.sb.SetClock(wib(2027, 3, 15, 10, 0))
	if _, err := e.l.Upsert(ctx, e.walk()); err != nil {
		t.Fatal(err)
	}
	d, err := e.l.Dashboard(ctx)
	if err != nil {
		t.Fatal(err)
	}

	if d.Overdue != (ledger.Sum{Amount: 1_050_000, Count: 2}) || d.OverdueStudents != 1 {
		t.Errorf("overdue = %+v of %d students, want 1.050.000 in 2 components of 1 student", d.Overdue, d.OverdueStudents)
	}
	if d.Expired != (ledger.Sum{Amount: 400_000, Count: 1}) {
		t.Errorf("expired = %+v", d.Expired)
	}
	if d.CollectedMonth != (ledger.Sum{Amount: 1_350_000, Count: 3}) || d.PaymentsMonth != 2 {
		t.Errorf("this month = %+v in %d payments, want 1.350.000 in 3 components of 2 payments", d.CollectedMonth, d.PaymentsMonth)
	}
	if d.CollectedToday != (ledger.Sum{Amount: 525_000, Count: 1}) || d.PaymentsToday != 1 {
		t.Errorf("today = %+v in %d payments", d.CollectedToday, d.PaymentsToday)
	}
	if d.DueMonth.Amount != 2_800_000 || d.PaidDueMonth.Amount != 1_300_000 {
		t.Errorf("due this month %+v, paid of it %+v", d.DueMonth, d.PaidDueMonth)
	}
	if r, ok := d.RatePermille(); !ok || r != 464 {
		t.Errorf("collection rate = %d‰ (%v), want 464‰", r, ok)
	}
}
