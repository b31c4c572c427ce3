package store_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/store"
)

// A cashier's day is locked once: a second closing of the same cashier and day is refused
// (also when two are signed at the same moment), another cashier's is not; a reopened one
// is kept beside the new closing; each closing keeps its receipts as counted.
func TestCashClosingsLockTheDay(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		day := time.Date(2027, 3, 15, 0, 0, 0, 0, time.UTC)
		at := time.Date(2027, 3, 15, 9, 30, 0, 0, time.UTC)
		if _, err := db.LockedCashClosing(ctx, day, "siti"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("none yet: %v", err)
		}
		receipts := []store.ClosingReceipt{
			{NIS: "2024001", StudentName: "Ani", Class: "7A", Ref: "KW/1", PaidAt: at.Add(-time.Hour), Components: 2, Amount: 500_000},
			{NIS: "2024002", StudentName: "Budi", Class: "8B", Ref: "KW/2", PaidAt: at.Add(-time.Minute), Components: 1, Amount: 250_000},
		}
		c := store.CashClosing{Day: day, Cashier: "siti", CashierName: "Siti Rahma", Payments: 2, Components: 3,
			Expected: 750_000, Counted: 745_000, Reason: "uang kembalian", SignedAt: at}
		entry := func() store.AuditEntry {
			return store.AuditEntry{Actor: "siti", Action: "closing.close", Target: "siti", Outcome: "ok"}
		}
		// Two sign-offs at once: one locks, the other is refused.
		var wg sync.WaitGroup
		errs := make([]error, 2)
		got := make([]store.CashClosing, 2)
		for i := range 2 {
			wg.Go(func() { got[i], errs[i] = db.CloseCash(ctx, c, receipts, entry()) })
		}
		wg.Wait()
		locked := 0
		var first store.CashClosing
		for i, err := range errs {
			switch {
			case err == nil:
				locked++
				first = got[i]
			case !errors.Is(err, store.ErrClosingLocked):
				t.Fatalf("sign-off %d: %v", i, err)
			}
		}
		if locked != 1 {
			t.Fatalf("%d closings locked the same day", locked)
		}
		if _, err := db.CloseCash(ctx, c, nil, entry()); !errors.Is(err, store.ErrClosingLocked) {
			t.Fatalf("a second closing: %v", err)
		}
		// Another cashier's day, and the same cashier's next day, close on their own.
		if _, err := db.CloseCash(ctx, store.CashClosing{Day: day, Cashier: "budi", SignedAt: at.Add(time.Minute)}, nil, entry()); err != nil {
			t.Fatal(err)
		}
		if _, err := db.CloseCash(ctx, store.CashClosing{Day: day.AddDate(0, 0, 1), Cashier: "siti", SignedAt: at.AddDate(0, 0, 1)}, nil, entry()); err != nil {
			t.Fatal(err)
		}
		l, err := db.LockedCashClosing(ctx, day, "siti")
		if err != nil || l.ID != first.ID || l.Expected != 750_000 || l.Counted != 745_000 || l.Reason != "uang kembalian" ||
			!l.SignedAt.Equal(at) || !l.Day.Equal(day) || l.State != store.ClosingLocked || l.Payments != 2 || l.Components != 3 {
			t.Fatalf("locked %+v %v", l, err)
		}
		full, rs, err := db.CashClosing(ctx, first.ID)
		if err != nil || full.ID != first.ID || len(rs) != 2 || rs[0] != receipts[0] || rs[1] != receipts[1] {
			t.Fatalf("closing %+v %+v %v", full, rs, err)
		}
		// Reopened once (a second reopening finds nothing locked), then closed again.
		if err := db.ReopenCash(ctx, first.ID, "admin", "Admin", "salah hitung", at.Add(time.Hour), entry()); err != nil {
			t.Fatal(err)
		}
		if err := db.ReopenCash(ctx, first.ID, "admin", "Admin", "lagi", at.Add(2*time.Hour), entry()); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("reopened twice: %v", err)
		}
		if _, err := db.LockedCashClosing(ctx, day, "siti"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("locked after the reopening: %v", err)
		}
		again, err := db.CloseCash(ctx, store.CashClosing{Day: day, Cashier: "siti", Expected: 750_000, Counted: 750_000,
			SignedAt: at.Add(3 * time.Hour)}, receipts[:1], entry())
		if err != nil {
			t.Fatal(err)
		}
		all, err := db.CashClosingsOn(ctx, day)
		if err != nil || len(all) != 3 || all[0].ID != first.ID || all[0].State != store.ClosingReopened || all[0].ReopenedBy != "admin" ||
			all[0].ReopenReason != "salah hitung" || !all[0].ReopenedAt.Equal(at.Add(time.Hour)) || all[1].Cashier != "budi" ||
			all[2].ID != again.ID || all[2].State != store.ClosingLocked {
			t.Fatalf("the day's closings %+v %v", all, err)
		}
		if _, _, err := db.CashClosing(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("unknown closing: %v", err)
		}
		if es, n, err := db.ListAudit(ctx, store.AuditFilter{Action: "closing.close"}); err != nil || n != 5 {
			t.Errorf("audit %d %v %v", n, es, err)
		}
	})
}
