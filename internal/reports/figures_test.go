package reports_test

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

// The small school every hand-computed figure below comes from. Today is Monday
// 15 March 2027, 10:00 in Jakarta; the school year began on 1 July 2026.
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
var today = wib(2027, time.March, 15, 10, 0)

func smallSchool(t *testing.T) *fixture {
	t.Helper()
	f := startFixture(t, wib(2027, time.January, 2, 9, 0), false, "SPP", "BCA")
	ctx := context.Background()
	if _, err := f.c.CreateStudents(ctx, []billing.Student{
		{NIS: "1001", Name: "Ani Lestari", Description: "Kelas 7A", Phone: "081200000001"},
		{NIS: "1002", Name: "Budi Santoso", Description: "Kelas 7B", Phone: "081200000002"},
		{NIS: "1003", Name: "Citra Dewi", Description: "Kelas 8A", Phone: "081200000003"},
	}); err != nil {
		t.Fatal(err)
	}
	if err := f.db.UpsertStudents(ctx, []store.Student{
		{NIS: "1001", Name: "Ani Lestari", Description: "Kelas 7A", Source: store.SourcePortal},
		{NIS: "1002", Name: "Budi Santoso", Description: "Kelas 7B", Source: store.SourcePortal},
	}); err != nil {
		t.Fatal(err)
	}
	comp := func(nis, account, name string, amount, penalty int64, due, expiry time.Time) billing.ComponentInput {
		return billing.ComponentInput{NIS: nis, AccountCode: account, Name: name, Amount: amount, Penalty: penalty, Due: due, Expiry: expiry}
	}
	created, err := f.c.CreateComponents(ctx, []billing.ComponentInput{
		comp("1001", "SPP", "SPP Februari", 500_000, 25_000, day(2027, 2, 10), day(2027, 4, 10)),       // A
		comp("1001", "SPP", "SPP Maret", 500_000, 25_000, day(2027, 3, 10), day(2027, 5, 10)),          // B
		comp("1001", "BCA", "Study Tour", 2_000_000, 0, day(2027, 4, 30), day(2027, 5, 31)),            // H
		comp("1002", "SPP", "SPP Februari", 500_000, 25_000, day(2027, 2, 10), day(2027, 4, 10)),       // C
		comp("1002", "BCA", "Uang Kegiatan", 800_000, 50_000, day(2027, 1, 15), day(2027, 2, 15)),      // D
		comp("1002", "BCA", "Uang Kegiatan Maret", 300_000, 10_000, day(2027, 3, 1), day(2027, 4, 30)), // G
		comp("1003", "BCA", "Uang Buku", 1_200_000, 0, day(2027, 3, 20), day(2027, 4, 30)),             // E
		comp("1003", "SPP", "SPP Maret", 500_000, 25_000, day(2027, 3, 10), day(2027, 5, 10)),          // F
		comp("1003", "SPP", "SPP Desember 2026", 400_000, 20_000, day(2026, 12, 10), day(2027, 6, 30)), // I
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
		f.sb.SetClock(at)
		if _, err := f.c.Pay(ctx, billing.Payment{NIS: nis, RefNumber: ref, ComponentIDs: []string{id[key]}}); err != nil {
			t.Fatalf("pay %s: %v", key, err)
		}
	}
	pay(wib(2027, 2, 8, 9, 0), "1001", "REF-A", "A")
	pay(wib(2027, 2, 25, 11, 0), "1002", "REF-G", "G")
	pay(wib(2027, 3, 12, 14, 0), "1001", "REF-B", "B")
	pay(wib(2027, 3, 15, 8, 30), "1003", "=HYPERLINK(\"x\")", "F")
	f.sb.SetClock(today)
	return f
}

func TestDashboardHandComputed(t *testing.T) {
	t.Parallel()
	f := smallSchool(t)
	got, err := f.svc.Dashboard(context.Background(), false)
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
		{"bucket not due", d.Buckets[ledger.BucketNotDue].Sum, ledger.Sum{Amount: 3_200_000, Count: 2}},
		{"bucket 1-30", d.Buckets[ledger.Bucket1to30].Sum, ledger.Sum{}},
		{"bucket 31-60", d.Buckets[ledger.Bucket31to60].Sum, ledger.Sum{Amount: 525_000, Count: 1}},
		{"bucket 61-90", d.Buckets[ledger.Bucket61to90].Sum, ledger.Sum{}},
		{"bucket >90", d.Buckets[ledger.BucketOver90].Sum, ledger.Sum{Amount: 420_000, Count: 1}},
	}
	for _, s := range sums {
		if s.got != s.want {
			t.Errorf("%s = %+v, want %+v", s.name, s.got, s.want)
		}
	}
	if d.OverduePenalty != 45_000 {
		t.Errorf("overdue penalty = %d, want 45000", d.OverduePenalty)
	}
	if r, ok := d.RatePermille(); !ok || r != 520 {
		t.Errorf("collection rate = %d‰ (%v), want 520‰", r, ok)
	}
	if b := d.Buckets[ledger.Bucket31to60]; !b.DueFrom.Equal(day(2027, 1, 14)) || !b.DueTo.Equal(day(2027, 2, 12)) {
		t.Errorf("31-60 bucket due range = %v..%v", b.DueFrom, b.DueTo)
	}
	if !slices.Equal(d.Accounts, []string{"SPP", "BCA"}) {
		t.Errorf("accounts = %v, want SPP (1.550.000) before BCA (300.000)", d.Accounts)
	}
	if len(d.Months) != 12 || !d.Months[0].Month.Equal(day(2026, 7, 1)) {
		t.Fatalf("months = %+v", d.Months)
	}
	feb, mar := d.Months[7], d.Months[8]
	if !slices.Equal(feb.ByAccount, []int64{500_000, 300_000}) || feb.Total != 800_000 ||
		!slices.Equal(mar.ByAccount, []int64{1_050_000, 0}) || mar.Total != 1_050_000 {
		t.Errorf("February %+v, March %+v", feb, mar)
	}
	wantTop := []ledger.StudentArrears{
		{NIS: "1002", Name: "Budi Santoso", Class: "Kelas 7B", Amount: 525_000, Count: 1, OldestDue: day(2027, 2, 10), DaysLate: 33},
		{NIS: "1003", Name: "Citra Dewi", Class: "", Amount: 420_000, Count: 1, OldestDue: day(2026, 12, 10), DaysLate: 95},
	}
	if !slices.Equal(d.TopArrears, wantTop) {
		t.Errorf("top arrears = %+v\nwant %+v", d.TopArrears, wantTop)
	}
	wantClasses := []ledger.ClassArrears{{Class: "Kelas 7B", Amount: 525_000, Students: 1}, {Class: "", Amount: 420_000, Students: 1}}
	if !slices.Equal(d.TopClasses, wantClasses) {
		t.Errorf("top classes = %+v", d.TopClasses)
	}
	wantSoon := []ledger.DueGroup{{Due: day(2027, 3, 20), DaysLate: -5, Name: "Uang Buku", Account: "BCA", Sum: ledger.Sum{Amount: 1_200_000, Count: 1}, Reminder: day(2027, 3, 18)}}
	if !slices.Equal(d.DueSoon, wantSoon) {
		t.Errorf("due soon = %+v", d.DueSoon)
	}
}

func TestReportsHandComputed(t *testing.T) {
	t.Parallel()
	f := smallSchool(t)
	ctx := context.Background()

	t.Run("payments", func(t *testing.T) {
		got, err := f.svc.Payments(ctx, reports.PaymentsFilter{From: day(2027, 3, 1), To: day(2027, 3, 15)}, false)
		if err != nil {
			t.Fatal(err)
		}
		rep := got.Value
		wantDays := []ledger.DayTotal{
			{Day: day(2027, 3, 12), Count: 1, Amount: 500_000, Penalty: 25_000, Paid: 525_000},
			{Day: day(2027, 3, 15), Count: 1, Amount: 500_000, Penalty: 25_000, Paid: 525_000},
		}
		if !slices.Equal(rep.Days, wantDays) {
			t.Errorf("days = %+v", rep.Days)
		}
		if rep.Total != (ledger.DayTotal{Count: 2, Amount: 1_000_000, Penalty: 50_000, Paid: 1_050_000}) {
			t.Errorf("total = %+v", rep.Total)
		}
		if len(rep.Rows) != 2 {
			t.Fatalf("rows = %+v", rep.Rows)
		}
		r := rep.Rows[0]
		if r.NIS != "1001" || r.Name != "Ani Lestari" || r.Class != "Kelas 7A" || r.Component != "SPP Maret" ||
			r.Account != "SPP" || r.Amount != 500_000 || r.Penalty != 25_000 || r.Paid != 525_000 || r.Ref != "REF-B" ||
			!r.Day.Equal(day(2027, 3, 12)) {
			t.Errorf("first row = %+v", r)
		}
		if r := rep.Rows[1]; r.NIS != "1003" || r.Name != "Citra Dewi" || r.Class != "" {
			t.Errorf("second row = %+v (name from the service, no class)", r)
		}

		bca, err := f.svc.Payments(ctx, reports.PaymentsFilter{From: day(2027, 2, 1), To: day(2027, 3, 15), Account: "BCA"}, false)
		if err != nil {
			t.Fatal(err)
		}
		if bca.Value.Total != (ledger.DayTotal{Count: 1, Amount: 300_000, Paid: 300_000}) || bca.Value.Rows[0].Ref != "REF-G" {
			t.Errorf("BCA payments = %+v", bca.Value)
		}
	})

	t.Run("outstanding", func(t *testing.T) {
		tests := []struct {
			name   string
			filter ledger.OutstandingFilter
			nis    []string
			total  int64
		}{
			{"all", ledger.OutstandingFilter{}, []string{"1002", "1003", "1001"}, 4_145_000},
			{"overdue (the arrears report)", ledger.OutstandingFilter{Overdue: true}, []string{"1002", "1003"}, 945_000},
			{"overdue of class 7B", ledger.OutstandingFilter{Overdue: true, Class: "Kelas 7B"}, []string{"1002"}, 525_000},
			{"overdue of BCA: none (its bills are not yet due)", ledger.OutstandingFilter{Overdue: true, Account: "BCA"}, nil, 0},
			{"class 7B", ledger.OutstandingFilter{Class: "Kelas 7B"}, []string{"1002"}, 525_000},
			{"no class", ledger.OutstandingFilter{Class: ledger.NoClass}, []string{"1003"}, 1_620_000},
			{"account BCA", ledger.OutstandingFilter{Account: "BCA"}, []string{"1001", "1003"}, 3_200_000},
			{"overdue only", ledger.OutstandingFilter{DueTo: day(2027, 3, 14)}, []string{"1002", "1003"}, 945_000},
			{"due in March", ledger.OutstandingFilter{DueFrom: day(2027, 3, 1), DueTo: day(2027, 3, 31)}, []string{"1003"}, 1_200_000},
		}
		for _, tt := range tests {
			got, err := f.svc.Outstanding(ctx, tt.filter, false)
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			var nis []string
			for _, r := range got.Value.Rows {
				nis = append(nis, r.NIS)
			}
			if !slices.Equal(nis, tt.nis) || got.Value.Total.Total != tt.total {
				t.Errorf("%s: students %v total %d, want %v %d", tt.name, nis, got.Value.Total.Total, tt.nis, tt.total)
			}
		}
		got, _ := f.svc.Outstanding(ctx, ledger.OutstandingFilter{}, false)
		c := got.Value.Rows[1]
		want := ledger.OutstandingRow{NIS: "1003", Name: "Citra Dewi", Count: 2,
			Buckets: [ledger.NumBuckets]int64{1_200_000, 0, 0, 0, 420_000}, Penalty: 20_000, Total: 1_620_000, OldestDue: day(2026, 12, 10), DaysLate: 95,
			Overdue: 420_000, OverdueCount: 1}
		if c != want {
			t.Errorf("1003 = %+v\nwant %+v", c, want)
		}
		if tot := got.Value.Total; tot.Count != 4 || tot.Penalty != 45_000 || tot.Buckets != [ledger.NumBuckets]int64{3_200_000, 0, 525_000, 0, 420_000} {
			t.Errorf("total = %+v", tot)
		}
	})

	t.Run("statement", func(t *testing.T) {
		got, err := f.svc.Statement(ctx, "1001", false)
		if err != nil {
			t.Fatal(err)
		}
		st := got.Value
		if st.Name != "Ani Lestari" || st.Class != "Kelas 7A" || st.Amount != 3_000_000 || st.Paid != 1_025_000 || st.Owed != 2_000_000 {
			t.Errorf("statement = %+v", st)
		}
		var names []string
		var running []int64
		for _, r := range st.Rows {
			names = append(names, r.Component+"/"+string(r.Status))
			running = append(running, r.Running)
		}
		if !slices.Equal(names, []string{"SPP Februari/paid", "SPP Maret/paid", "Study Tour/provisioned"}) || !slices.Equal(running, []int64{0, 0, 2_000_000}) {
			t.Errorf("rows %v running %v", names, running)
		}
		st2, err := f.svc.Statement(ctx, "1002", false)
		if err != nil {
			t.Fatal(err)
		}
		var statuses []component.Status
		for _, r := range st2.Value.Rows {
			statuses = append(statuses, r.Status)
		}
		if !slices.Equal(statuses, []component.Status{component.StatusExpired, component.StatusOverdue, component.StatusPaid}) || st2.Value.Owed != 525_000 {
			t.Errorf("1002 statuses %v owed %d", statuses, st2.Value.Owed)
		}
		if _, err := f.svc.Statement(ctx, "9999", false); err == nil {
			t.Error("unknown NIS gave no error")
		}
	})

	t.Run("accounts", func(t *testing.T) {
		got, err := f.svc.Accounts(ctx, reports.PaymentsFilter{From: day(2027, 2, 1), To: day(2027, 3, 15)}, false)
		if err != nil {
			t.Fatal(err)
		}
		want := []ledger.AccountRow{
			{Account: "BCA", Payments: 1, Amount: 300_000, Paid: 300_000, NotYetDue: 3_200_000, Outstanding: 3_200_000},
			{Account: "SPP", Payments: 3, Amount: 1_500_000, Penalty: 50_000, Paid: 1_550_000, Overdue: 945_000, Outstanding: 945_000},
		}
		if !slices.Equal(got.Value.Rows, want) {
			t.Errorf("rows = %+v", got.Value.Rows)
		}
		if tot := got.Value.Total; tot.Paid != 1_850_000 || tot.Outstanding != 4_145_000 || tot.Payments != 4 {
			t.Errorf("total = %+v", tot)
		}
	})

	t.Run("bad ranges", func(t *testing.T) {
		if _, err := f.svc.Payments(ctx, reports.PaymentsFilter{From: day(2027, 3, 2), To: day(2027, 3, 1)}, false); err != reports.ErrBadRange {
			t.Errorf("reversed range: %v", err)
		}
		if _, err := f.svc.Payments(ctx, reports.PaymentsFilter{From: day(2025, 1, 1), To: day(2027, 3, 1)}, false); err != reports.ErrRangeTooLong {
			t.Errorf("long range: %v", err)
		}
	})
}
