package ledger_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/ledger"
)

// TestConcurrentWritersCountOnce records the same payments from several writers at once,
// as a payment callback and an incremental sync do when they meet: each component is
// counted paid once in the summary totals, so the dashboard still equals the figures
// computed from the components themselves.
func TestConcurrentWritersCountOnce(t *testing.T) { eachEngine(t, testConcurrentWritersCountOnce) }

func testConcurrentWritersCountOnce(t *testing.T, engine string) {
	ctx := context.Background()
	db := openDB(t, engine)
	clk := &testClock{t: ledger.GenToday.Add(3 * time.Hour)}
	l, err := ledger.New(ctx, ledger.Config{DB: db, Clock: clock.New(clk.now, jakarta)})
	if err != nil {
		t.Fatal(err)
	}
	if err := ledger.Generate(ctx, db, 2_000, jakarta); err != nil {
		t.Fatal(err)
	}
	var open []billing.Bill
	for b, err := range l.All(ctx, billing.Query{State: billing.StateProvisioned}) {
		if err != nil {
			t.Fatal(err)
		}
		if len(open) < 40 {
			open = append(open, b)
		}
	}
	if len(open) < 40 {
		t.Fatalf("only %d open components to pay", len(open))
	}
	const writers = 6
	var wg sync.WaitGroup
	errs := make(chan error, writers*len(open))
	for i, b := range open {
		paid := b
		paid.State, paid.RawState = billing.StatePaid, "paid"
		paid.AmountPaid, paid.PaidAt, paid.RefNumber = b.Amount, clk.t, fmt.Sprintf("REF%d", i)
		paid.UpdatedAt = clk.t
		for range writers {
			wg.Go(func() {
				if _, err := l.Upsert(ctx, []billing.Bill{paid}); err != nil {
					errs <- err
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	got, err := l.DashboardOn(ctx, ledger.GenToday)
	if err != nil {
		t.Fatal(err)
	}
	sameDashboard(t, got, reportsDashboard(t, ledger.GenToday, l.All(ctx, billing.Query{}), people(t, db)))
}
