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
	t.Parallel()
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

// TestStartStop: a started syncer fills the ledger in the background; Stop ends it and
// releases the sync's lease so another instance can go on at once.
func TestStartStop(t *testing.T) {
	t.Parallel()
	e := newEnv(t, syncNow)
	ctx := context.Background()
	e.components(e.students("S", 5), 1200, "SPP")
	if err := e.s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		f, err := e.l.Freshness(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !f.Filling() && f.LastKind == "incremental" && !f.LastEnd.IsZero() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not filled after 10s: %+v", f)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := e.s.AskReconcile(ctx, "admin"); err != nil {
		t.Fatal(err)
	}
	for {
		f, _ := e.l.Freshness(ctx)
		if f.LastKind == "reconcile" && !f.LastEnd.IsZero() {
			if !f.LastOK {
				t.Fatalf("reconcile: %+v", f)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the reconcile asked for did not run: %+v", f)
		}
		time.Sleep(20 * time.Millisecond)
	}
	stop, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := e.s.Stop(stop); err != nil {
		t.Fatal(err)
	}
	if owner, _, err := e.db.LeaseHolder(ctx, "ledger.sync", e.sb.Now()); err != nil || owner != "" {
		t.Errorf("lease still held by %q after Stop (%v)", owner, err)
	}
	e.sameAsService()
}
