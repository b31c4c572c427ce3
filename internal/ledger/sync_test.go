package ledger_test

import (
	"context"
	"testing"
	"time"
)

var syncNow = time.Date(2027, time.March, 15, 10, 0, 0, 0, jakarta)

// TestIncrementalSyncCalls counts the calls the sandbox answers: an incremental sync
// that finds nothing new makes at most 3; with k new components at most ⌈k/1000⌉+3.
func TestIncrementalSyncCalls(t *testing.T) {
	e := newEnv(t, syncNow)
	st := e.students("A", 40)
	e.components(st, 2500, "SPP")

	first := e.sync() // the first fill, then an incremental sync
	e.sameAsService()
	if f, _ := e.l.Freshness(context.Background()); f.Filling() || f.SyncedAt.IsZero() {
		t.Fatalf("after the first sync: %+v", f)
	}
	t.Logf("first fill of 2,500 components: %d calls", first)

	if n := e.sync(); n > 3 {
		t.Errorf("nothing new: %d calls, want at most 3", n)
	}
	for _, k := range []int{1, 999, 1000, 2345} {
		e.components(st, k, "Kegiatan")
		want := (k+999)/1000 + 3
		if n := e.sync(); n > want {
			t.Errorf("%d new components: %d calls, want at most %d", k, n, want)
		}
		e.sameAsService()
	}
	if n := e.sync(); n > 3 {
		t.Errorf("nothing new again: %d calls, want at most 3", n)
	}
}
