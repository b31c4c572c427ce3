package store_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/store"
)

func openSQLite(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "portal.db"))
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

		since := at(5)
		tests := []struct {
			user, addr         string
			byUser, byAddr     int
			lastUser, lastAddr time.Time
		}{
			{"SITI", "10.0.0.1", 3, 3, at(13), at(13)},
			{"siti", "10.0.0.2", 3, 1, at(13), at(11)},
			{"budi", "10.0.0.1", 1, 3, at(12), at(13)},
			{"ani", "10.0.0.9", 1, 1, at(15), at(15)},
			{"rudi", "10.0.0.3", 1, 2, at(13), at(13)}, // the address keeps counting past the success
			{"wati", "10.0.0.4", 1, 1, at(9), at(9)},
			{"nobody", "", 0, 0, time.Time{}, time.Time{}},
			{"siti", "", 3, 0, at(13), time.Time{}},
		}
		for _, tt := range tests {
			byUser, byAddr, lastUser, lastAddr, err := db.FailuresSince(ctx, tt.user, tt.addr, since)
			if err != nil {
				t.Fatal(err)
			}
			if byUser != tt.byUser || byAddr != tt.byAddr || !lastUser.Equal(tt.lastUser) || !lastAddr.Equal(tt.lastAddr) {
				t.Errorf("FailuresSince(%q, %q) = %d, %d, %v, %v; want %d, %d, %v, %v", tt.user, tt.addr,
					byUser, byAddr, lastUser, lastAddr, tt.byUser, tt.byAddr, tt.lastUser, tt.lastAddr)
			}
		}

		n, err := db.PruneSignIns(ctx, at(10))
		if err != nil || n != 4 {
			t.Errorf("PruneSignIns = %d, %v; want 4", n, err)
		}
		if byUser, _, _, _, _ := db.FailuresSince(ctx, "rudi", "", at(0)); byUser != 1 {
			t.Errorf("after prune rudi byUser = %d, want 1", byUser)
		}
		if byUser, _, _, _, _ := db.FailuresSince(ctx, "siti", "", at(0)); byUser != 3 {
			t.Errorf("after prune siti byUser = %d, want 3", byUser)
		}
	})
}
