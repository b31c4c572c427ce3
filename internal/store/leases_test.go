package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/store"
)

// TestNamedLeases: one owner at a time; the holder renews; a lapsed lease goes to the
// next claimant; releasing frees it at once and leaves another's lease alone.
func TestNamedLeases(t *testing.T) {
	eachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		now := time.Date(2027, 3, 15, 3, 0, 0, 0, time.UTC)
		claim := func(owner string, at time.Time) bool {
			t.Helper()
			ok, err := db.ClaimLease(ctx, "work", owner, at.Add(time.Minute), at)
			if err != nil {
				t.Fatal(err)
			}
			return ok
		}
		if !claim("a", now) || claim("b", now.Add(30*time.Second)) {
			t.Fatal("a should hold the new lease, b be refused")
		}
		if !claim("a", now.Add(30*time.Second)) {
			t.Error("the holder could not claim again")
		}
		if ok, err := db.RenewLease(ctx, "work", "a", now.Add(3*time.Minute)); err != nil || !ok {
			t.Fatalf("renew: %v %v", ok, err)
		}
		if claim("b", now.Add(2*time.Minute)) {
			t.Error("b took a renewed lease")
		}
		if owner, until, err := db.LeaseHolder(ctx, "work", now.Add(2*time.Minute)); err != nil || owner != "a" || !until.Equal(now.Add(3*time.Minute)) {
			t.Errorf("holder %q until %v (%v)", owner, until, err)
		}
		if !claim("b", now.Add(4*time.Minute)) {
			t.Fatal("b could not take the lapsed lease")
		}
		if ok, _ := db.RenewLease(ctx, "work", "a", now.Add(9*time.Minute)); ok {
			t.Error("a renewed a lease it lost")
		}
		if err := db.ReleaseLease(ctx, "work", "a"); err != nil {
			t.Fatal(err)
		}
		if owner, _, _ := db.LeaseHolder(ctx, "work", now.Add(4*time.Minute)); owner != "b" {
			t.Errorf("a's release freed b's lease: holder %q", owner)
		}
		if err := db.ReleaseLease(ctx, "work", "b"); err != nil {
			t.Fatal(err)
		}
		if !claim("c", now.Add(4*time.Minute)) {
			t.Error("a released lease was not free")
		}
	})
}
