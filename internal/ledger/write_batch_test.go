package ledger_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/ledger"
)

// TestUpsertManyAtOnce writes a batch larger than one statement's rows, with the same
// component three times in it (once paid later, once with its plan key taken out of its
// notes): each component is written once, the last record of each wins, the plan keys
// follow the last notes, and the totals agree with the rows.
func TestUpsertManyAtOnce(t *testing.T) {
	eachEngine(t, func(t *testing.T, engine string) {
		ctx := context.Background()
		now := time.Date(2026, 7, 1, 3, 0, 0, 0, time.UTC)
		l, err := ledger.New(ctx, ledger.Config{DB: openDB(t, engine), Clock: clock.New(func() time.Time { return now }, jakarta)})
		if err != nil {
			t.Fatal(err)
		}
		key := ledger.PlanKey{Code: "SPP26", Period: "2026-07"}.Notes()
		bill := func(i int) billing.Bill {
			b := billing.Bill{ComponentID: fmt.Sprintf("c%03d", i), BillID: fmt.Sprintf("b%02d", i%10), NIS: fmt.Sprintf("26%03d", i%10),
				StudentName: "Siswa", AccountCode: "SPP", Name: "SPP Juli 2026", Amount: 350_000, Penalty: 25_000,
				Due: time.Date(2026, 7, 10, 0, 0, 0, 0, time.UTC), Expiry: time.Date(2026, 7, 30, 0, 0, 0, 0, time.UTC),
				State: billing.StateProvisioned, CreatedAt: now, UpdatedAt: now}
			if i%2 == 0 {
				b.Notes = key
			}
			return b
		}
		var in []billing.Bill
		for i := range 30 {
			in = append(in, bill(i))
		}
		paid := bill(5)
		paid.State, paid.AmountPaid, paid.PaidAt, paid.UpdatedAt = billing.StatePaid, 350_000, now.Add(time.Hour), now.Add(time.Hour)
		in = append(in, paid) // in the same statement's window as its first record
		for i := 30; i < 130; i++ {
			in = append(in, bill(i))
		}
		unkeyed := bill(10)
		unkeyed.Notes, unkeyed.UpdatedAt = "diubah", now.Add(time.Minute)
		in = append(in, unkeyed)

		res, err := l.Upsert(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		if res.Inserted != 130 || res.Updated != 2 || res.Unchanged != 0 || res.Stale != 0 {
			t.Fatalf("result %+v, want 130 inserted and 2 updated", res)
		}
		if got, err := l.Component(ctx, "c005"); err != nil || got.State != billing.StatePaid || got.AmountPaid != 350_000 {
			t.Fatalf("c005: %+v %v, want paid", got, err)
		}
		if got, err := l.Component(ctx, "c010"); err != nil || got.Notes != "diubah" {
			t.Fatalf("c010: %+v %v, want its notes changed", got, err)
		}
		if got, err := l.Component(ctx, "c129"); err != nil || got.Notes != "" || got.NIS != "26009" {
			t.Fatalf("c129: %+v %v", got, err)
		}
		keyed, err := l.PlanComponents(ctx, "SPP26", nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(keyed) != 64 {
			t.Fatalf("%d components under the plan's key, want 64 (the even ones but c010)", len(keyed))
		}
		for _, c := range keyed {
			if c.Bill.ComponentID == "c010" {
				t.Fatal("c010 kept under the plan's key its notes no longer carry")
			}
		}
		// A component the ledger holds, its notes changed twice in one batch: the key it
		// is given last counts, not the notes it had on the way.
		noted, keyedNow := bill(11), bill(11)
		noted.Notes, noted.UpdatedAt = "catatan", now.Add(2*time.Minute)
		keyedNow.Notes, keyedNow.UpdatedAt = key+" catatan", now.Add(3*time.Minute)
		if res, err := l.Upsert(ctx, []billing.Bill{noted, keyedNow}); err != nil || res.Updated != 2 {
			t.Fatalf("c011 twice: %+v %v", res, err)
		}
		if keyed, err = l.PlanComponents(ctx, "SPP26", []string{"26001"}); err != nil || len(keyed) != 1 || keyed[0].Bill.ComponentID != "c011" {
			t.Fatalf("26001's components under the plan's key: %+v %v, want c011", keyed, err)
		}
		n, _, err := l.Counts(ctx)
		if err != nil || n != 130 {
			t.Fatalf("%d components, %v", n, err)
		}
		// Written again as they are: nothing changes.
		if res, err := l.Upsert(ctx, in[len(in)-60:len(in)-1]); err != nil || res.Changed() != 0 {
			t.Fatalf("again: %+v %v", res, err)
		}
		d1, err := l.Dashboard(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.RebuildTotals(ctx); err != nil {
			t.Fatal(err)
		}
		d2, err := l.Dashboard(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(d1) != fmt.Sprint(d2) {
			t.Fatalf("totals kept by the writes\n%+v\ndiffer from those rebuilt from the rows\n%+v", d1, d2)
		}
	})
}
