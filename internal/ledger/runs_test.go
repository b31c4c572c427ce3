package ledger_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/store"
)

// TestRunsAndAsks: every run is recorded where every instance reads it (what it found,
// who asked); a request to sync now made on an instance that does not hold the lease is
// run by the one that does, within its AskPoll, once.
func TestRunsAndAsks(t *testing.T) {
	t.Parallel()
	e := newEnv(t, syncNow)
	ctx := context.Background()
	st := e.students("R", 3)
	e.components(st, 12, "SPP")
	r := e.reconcile() // a first fill, then the incremental after it
	if r.Kind != ledger.RunFill {
		t.Fatalf("first run: %+v", r)
	}
	runs, err := e.l.Runs(ctx, "", 10)
	if err != nil || len(runs) != 2 || runs[0].Kind != ledger.RunIncremental || runs[1].Kind != ledger.RunFill {
		t.Fatalf("runs after the first: %+v %v", runs, err)
	}
	if f := runs[1]; !f.OK || f.NewComponents != 12 || f.Students != 3 || f.End.IsZero() || f.Instance == "" {
		t.Errorf("the fill's run: %+v", f)
	}

	// A second instance on the same database, the same service: it does not hold the
	// lease; its request reaches the first instance's loop.
	other, err := ledger.NewSyncer(ledger.SyncConfig{Ledger: e.l, Client: e.c, ReconcileHour: -1, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.RunIncremental(ctx); err != ledger.ErrLeaseHeld {
		t.Fatalf("the other instance ran a sync: %v", err)
	}
	e.s.SetAskPollForTest(20 * time.Millisecond)
	if err := e.s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.s.Stop(context.Background()) })
	<-e.s.FirstRun()
	e.components(st, 2, "Buku")
	if err := other.AskSync(ctx, "siti"); err != nil {
		t.Fatal(err)
	}
	if f, _ := e.l.Freshness(ctx); f.SyncAsked.IsZero() {
		// It may have been served already; then the run below shows it.
		t.Log("the request was served at once")
	}
	run := awaitLedgerRun(t, e.l, func(r ledger.Run) bool { return r.AskedBy == "siti" })
	if run.Kind != ledger.RunIncremental || !run.OK || run.NewComponents != 2 || run.Instance != e.s.Owner() {
		t.Errorf("the asked run: %+v", run)
	}
	if f, _ := e.l.Freshness(ctx); !f.SyncAsked.IsZero() {
		t.Errorf("the request still waits after its run: %+v", f)
	}
	// Served once: no run asked by siti follows it.
	time.Sleep(100 * time.Millisecond)
	asked := 0
	runs, _ = e.l.Runs(ctx, "", 20)
	for _, r := range runs {
		if r.AskedBy == "siti" {
			asked++
		}
	}
	if asked != 1 {
		t.Errorf("%d runs for one request", asked)
	}

	// A reconcile asked for on the other instance, likewise.
	if err := other.AskReconcile(ctx, "admin"); err != nil {
		t.Fatal(err)
	}
	rec := awaitLedgerRun(t, e.l, func(r ledger.Run) bool { return r.Kind == ledger.RunReconcile })
	if rec.AskedBy != "admin" || !rec.OK {
		t.Errorf("the asked reconcile: %+v", rec)
	}
	if last, ok, err := e.l.LastRun(ctx, ledger.RunReconcile, true); err != nil || !ok || last.ID != rec.ID {
		t.Errorf("last reconcile %+v %v %v", last, ok, err)
	}
}

// awaitLedgerRun waits until a run that match accepts has ended.
func awaitLedgerRun(t *testing.T, l *ledger.Ledger, match func(ledger.Run) bool) ledger.Run {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		runs, err := l.Runs(context.Background(), "", 50)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range runs {
			if !r.End.IsZero() && match(r) {
				return r
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no such run within 10s: %+v", runs)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestStudentTotalsAndRoster: what each student owes today adds up the open, payable
// components the way internal/students' summary does (which the student page shows);
// the writer's roster entries and a removed student move the change sequence on.
func TestStudentTotalsAndRoster(t *testing.T) {
	t.Parallel()
	e := newEnv(t, syncNow)
	ctx := context.Background()
	st := e.students("T", 6)
	e.components(st, 90, "SPP")
	e.reconcile()
	walk := e.walk()
	today := billing.DayIn(e.sb.Now(), jakarta)
	want := map[string]ledger.StudentTotal{}
	for _, b := range walk {
		due := b.DueToday(today)
		if due == 0 {
			continue
		}
		w := want[b.NIS]
		w.Outstanding += due
		if b.IsLate(today) {
			w.Overdue++
		}
		want[b.NIS] = w
	}
	var nis []string
	for _, s := range st {
		nis = append(nis, s.NIS)
	}
	got, err := e.l.StudentTotals(ctx, append(nis, "nobody"))
	if err != nil {
		t.Fatal(err)
	}
	if len(want) == 0 || len(got) != len(want) {
		t.Fatalf("totals of %d students, want %d", len(got), len(want))
	}
	for n, w := range want {
		if got[n] != w {
			t.Errorf("%s owes %+v, want %+v", n, got[n], w)
		}
	}
	comps, studs, err := e.l.Counts(ctx)
	if err != nil || comps != len(walk) || studs != 6 {
		t.Errorf("counts %d components, %d students (%v); want %d, 6", comps, studs, err, len(walk))
	}

	seq, _ := e.l.ChangeSeq(ctx)
	if err := e.l.RecordStudents(ctx, []billing.Student{{NIS: "T0001", Name: "Nama Baru", Description: "Kelas 9A"}}, store.SourcePortal); err != nil {
		t.Fatal(err)
	}
	if s, err := e.db.StudentByNIS(ctx, "T0001"); err != nil || s.Name != "Nama Baru" || s.KeyName != billing.DefaultKeyName {
		t.Errorf("roster entry: %+v %v", s, err)
	}
	if n, _ := e.l.ChangeSeq(ctx); n == seq {
		t.Error("a new name did not move the change sequence on")
	}
	res, err := e.l.StudentRemoved(ctx, "T0002")
	if err != nil || res.Updated == 0 {
		t.Fatalf("removed: %+v %v", res, err)
	}
	if _, err := e.db.StudentByNIS(ctx, "T0002"); err == nil {
		t.Error("a removed student stays on the roster")
	}
	if got, _ := e.l.StudentTotals(ctx, []string{"T0002"}); len(got) != 0 {
		t.Errorf("a removed student still owes %+v", got)
	}
}

// TestCallbackStats: the data page's figures about the callbacks.
func TestCallbackStats(t *testing.T) {
	t.Parallel()
	e := newEnv(t, syncNow)
	ctx := context.Background()
	st := e.students("C", 2)
	bills := e.components(st, 4, "SPP") // the first two expired already
	e.reconcile()
	week := e.sb.Now().AddDate(0, 0, -7)
	s, err := e.l.CallbackStats(ctx, week)
	if err != nil || s.Received != 0 || !s.Last.IsZero() || s.Payments != 0 {
		t.Fatalf("before any payment: %+v %v", s, err)
	}
	// Paid at the counter behind the portal's back: a payment, no callback.
	if _, err := e.c.Pay(ctx, billing.Payment{NIS: bills[2].NIS, RefNumber: "K1", ComponentIDs: []string{bills[2].ComponentID}}); err != nil {
		t.Fatal(err)
	}
	e.sync()
	if s, _ := e.l.CallbackStats(ctx, week); s.Received != 0 || s.Payments != 1 {
		t.Errorf("a payment without a callback: %+v", s)
	}
	// At a bank: the callback comes.
	e.bankPay(bills[3].NIS, bills[3].ComponentID)
	e.waitCallbacks()
	if s, _ := e.l.CallbackStats(ctx, week); s.Received != 1 || s.Last.IsZero() || s.Payments != 2 || s.Waiting != 0 {
		t.Errorf("after a bank payment: %+v", s)
	}
}
