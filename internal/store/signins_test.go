package store_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/store"
)

func openSQLite(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "portal.db"), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestFailuresSince(t *testing.T) {
	eachDB(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		t0 := time.Date(2025, 5, 1, 10, 0, 0, 0, time.UTC)
		at := func(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }
		record := func(user, addr string, ok bool, min int) {
			t.Helper()
			if err := db.RecordSignIn(ctx, user, addr, ok, at(min)); err != nil {
				t.Fatal(err)
			}
		}
		record("siti", "10.0.0.1", false, 0)  // before the window
		record("Siti", "10.0.0.1", false, 10) // case folded
		record("siti", "10.0.0.2", false, 11) // other address
		record("budi", "10.0.0.1", false, 12) // other user, same address
		record("siti", "10.0.0.1", false, 13) // newest failure
		record("ani", "10.0.0.9", true, 14)   // successes are not failures
		record("ani", "10.0.0.9", false, 15)  // failure after a success
		record("rudi", "10.0.0.3", false, 9)  // failure, then success clears it
		record("rudi", "10.0.0.3", true, 12)  //
		record("rudi", "10.0.0.3", false, 13) // counted again
		record("wati", "10.0.0.4", false, 9)  // success before since does not matter
		record("wati", "10.0.0.4", true, 1)   //

		record("joko", "10.0.0.6", false, 8)  // a success elsewhere does not clear a pair
		record("joko", "10.0.0.7", true, 10)  //
		record("joko", "10.0.0.6", false, 11) //

		since := at(5)
		tests := []struct {
			scope      store.FailureScope
			user, addr string
			n          int
			last       time.Time
		}{
			{store.ScopeUsername, "SITI", "ignored", 3, at(13)},
			{store.ScopeUsername, "budi", "", 1, at(12)},
			{store.ScopeUsername, "ani", "", 1, at(15)},
			{store.ScopeUsername, "rudi", "", 1, at(13)}, // the success cleared the earlier one
			{store.ScopeUsername, "wati", "", 1, at(9)},  // a success before since does not matter
			{store.ScopeUsername, "joko", "", 1, at(11)},
			{store.ScopeUsername, "nobody", "", 0, time.Time{}},
			{store.ScopePair, "siti", "10.0.0.1", 2, at(13)},
			{store.ScopePair, "Siti", "10.0.0.2", 1, at(11)},
			{store.ScopePair, "rudi", "10.0.0.3", 1, at(13)},
			{store.ScopePair, "joko", "10.0.0.6", 2, at(11)},
			{store.ScopePair, "joko", "10.0.0.7", 0, time.Time{}},
			{store.ScopePair, "siti", "", 0, time.Time{}},
			{store.ScopeAddr, "ignored", "10.0.0.1", 3, at(13)},
			{store.ScopeAddr, "", "10.0.0.2", 1, at(11)},
			{store.ScopeAddr, "", "10.0.0.3", 2, at(13)}, // the address keeps counting past the success
			{store.ScopeAddr, "", "10.0.0.6", 2, at(11)},
			{store.ScopeAddr, "", "", 0, time.Time{}},
		}
		for _, tt := range tests {
			n, last, err := db.FailuresSince(ctx, tt.scope, tt.user, tt.addr, since)
			if err != nil {
				t.Fatal(err)
			}
			if n != tt.n || !last.Equal(tt.last) {
				t.Errorf("FailuresSince(%d, %q, %q) = %d, %v; want %d, %v", tt.scope, tt.user, tt.addr, n, last, tt.n, tt.last)
			}
		}
		if _, _, err := db.FailuresSince(ctx, 0, "siti", "", since); err == nil {
			t.Error("FailuresSince with no scope: no error")
		}

		n, err := db.PruneSignIns(ctx, at(10))
		if err != nil || n != 5 {
			t.Errorf("PruneSignIns = %d, %v; want 5", n, err)
		}
		if n, _, _ := db.FailuresSince(ctx, store.ScopeUsername, "rudi", "", at(0)); n != 1 {
			t.Errorf("after prune rudi = %d, want 1", n)
		}
		if n, _, _ := db.FailuresSince(ctx, store.ScopeUsername, "siti", "", at(0)); n != 3 {
			t.Errorf("after prune siti = %d, want 3", n)
		}
	})
}
