package corrections_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/changes"
	"github.com/sekolah/portal/internal/corrections"
	"github.com/sekolah/portal/internal/sandbox"
)

// atService lists student nis's components at the service whatever their state.
func atService(t *testing.T, e *env, nis string) []billing.Bill {
	t.Helper()
	var out []billing.Bill
	for _, state := range []billing.State{"", billing.StateDeleted} {
		for b, err := range e.client(t).AllForStudent(context.Background(), nis, billing.Query{State: state, Limit: billing.MaxLimit}) {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, b)
		}
	}
	return out
}

func splitOf(t *testing.T, b billing.Bill, parts string) corrections.Split {
	t.Helper()
	s, probs := corrections.PlanSplit(b, corrections.SplitForm{Parts: parts, FirstDue: "2026-09-10", Reason: "permintaan orang tua"})
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	return s
}

// TestSplitUnderFaultsAndRestart is the instalment split's promise: 24 components split
// into 3 parts each while the service fails a fifth of the calls with 503 and lets some
// time out after applying them, with the runner stopped hard in the middle and another
// started: every part made exactly once at the service (one record with its key, none
// cancelled), every original cancelled exactly once; the one paid at a bank after the
// preview keeps its payment and has its parts cancelled again, nothing else changed.
func TestSplitUnderFaultsAndRestart(t *testing.T) {
	t.Parallel()
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			testSplitUnderFaults(t, newEnv(t, 150*time.Millisecond, engine == "postgres"))
		})
	}
}

func testSplitUnderFaults(t *testing.T, e *env) {
	ctx := context.Background()
	var originals []billing.Bill
	for _, b := range e.seed(t, 25) {
		if b.Name == "Buku" {
			originals = append(originals, b)
		}
	}
	paid := originals[len(originals)-1]
	splits := make([]corrections.Split, len(originals))
	for i, b := range originals {
		splits[i] = splitOf(t, b, "3")
	}
	// Paid at a bank once the page had shown the preview.
	if _, err := e.client(t).Pay(ctx, billing.Payment{NIS: paid.NIS, ComponentIDs: []string{paid.ComponentID}}); err != nil {
		t.Fatal(err)
	}

	r1 := e.runner(t, 10)
	e.sb.SetFaults(sandbox.Faults{ErrorRate: 0.2, Status: 503, TimeoutRate: 0.08})
	ids := make([]string, len(splits))
	for i, s := range splits {
		id, err := r1.SubmitSplit(ctx, s, financeActor)
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = id
	}
	// A second split of a component on its way is refused.
	if _, err := r1.SubmitSplit(ctx, splits[0], financeActor); !errors.Is(err, corrections.ErrSplitTaken) {
		t.Fatalf("second split: %v", err)
	}
	// Stopped hard once a third of the splits are through, calls in flight cut.
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		finished := 0
		for _, id := range ids {
			j, err := e.db.CorrectionJobByID(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if !corrections.Running(j.State) {
				finished++
			}
		}
		if finished >= len(ids)/3 {
			if finished == len(ids) {
				t.Fatal("every split finished before the restart; the test would prove nothing")
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d splits finished", finished)
		}
	}
	stopped, cancel := context.WithCancel(ctx)
	cancel()
	_ = r1.Stop(stopped)
	e.runner(t, 10)
	for _, id := range ids {
		waitJob(t, e.db, id)
	}
	e.sb.SetFaults(sandbox.Faults{})

	for i, s := range splits {
		o := s.Original
		j, _ := e.db.CorrectionJobByID(ctx, ids[i])
		items, err := e.db.CorrectionItems(ctx, ids[i])
		if err != nil {
			t.Fatal(err)
		}
		outcome := corrections.ReplacementOutcome(items)
		records := atService(t, e, o.NIS)
		byKey := map[string][]billing.Bill{}
		var now billing.Bill
		for _, b := range records {
			if b.ComponentID == o.ComponentID {
				now = b
			}
			if p, ok := corrections.PartOf(b.Notes); ok && p.Original == o.ComponentID {
				byKey[b.Notes] = append(byKey[b.Notes], b)
			}
		}
		if len(byKey) != 3 {
			t.Errorf("%s: %d parts at the service, want 3", o.NIS, len(byKey))
		}
		var sum int64
		for _, p := range s.Parts {
			got := byKey[p.Notes]
			if len(got) != 1 {
				t.Errorf("%s %q: made %d times, want once", o.NIS, p.Name, len(got))
				continue
			}
			sum += got[0].Amount
			wantState := billing.StateProvisioned
			if o.ComponentID == paid.ComponentID {
				wantState = billing.StateDeleted // withdrawn: the original was paid
			}
			if got[0].State != wantState || got[0].Amount != p.Amount || got[0].Name != p.Name || !got[0].Due.Equal(p.Due) {
				t.Errorf("%s %q at the service: %+v", o.NIS, p.Name, got[0])
			}
		}
		if sum != o.Amount {
			t.Errorf("%s: the parts add up to %d, the original was %d", o.NIS, sum, o.Amount)
		}
		if o.ComponentID == paid.ComponentID {
			if outcome != corrections.OutcomeWithdrew || j.State != corrections.StatePartial || now.State != billing.StatePaid {
				t.Errorf("paid original: outcome %s, job %s, original %s", outcome, j.State, now.State)
			}
			if sure, maybe := e.applied.count(o.ComponentID); sure+maybe != 0 {
				t.Errorf("the paid original was cancelled")
			}
			continue
		}
		if outcome != corrections.OutcomeReplaced || j.State != corrections.StateDone || now.State != billing.StateDeleted {
			t.Errorf("%s: outcome %s, job %s (done %d skipped %d failed %d), original %s", o.NIS, outcome, j.State, j.Done, j.Skipped, j.Failed, now.State)
		}
		e.applied.once(t, o.ComponentID)
	}
	// The split of the paid one made nothing in the end: it may be split again (it is
	// paid, so the form refuses it; the record is free).
	if rec, err := e.db.InstalmentSplitOf(ctx, paid.ComponentID); err != nil || !rec.Void {
		t.Errorf("the withdrawn split's record: %+v %v", rec, err)
	}
	// Each split asked for is audited once, the withdrawn one once more as failed.
	entries := auditEntries(t, e.db, "corrections.split")
	if len(entries) != len(splits)+1 {
		t.Errorf("%d audit entries of splits, want %d", len(entries), len(splits)+1)
	}
	failed := 0
	for _, a := range entries {
		if a.Outcome == changes.OutcomeFailed {
			failed++
			if a.Args["nis"] != paid.NIS {
				t.Errorf("failed split entry: %+v", a)
			}
		}
	}
	if failed != 1 {
		t.Errorf("%d failed split entries", failed)
	}
}

// TestSplitRefusedMakesNothing: parts the service refuses (the student gone meanwhile)
// leave the original as it was, never cancelled, and the component may be split again.
func TestSplitRefusedMakesNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 2*time.Second)
	ctx := context.Background()
	b := e.seed(t, 1)[0]
	s := splitOf(t, b, "4")
	// The parts name an account the service does not have: the batch is refused.
	for i := range s.Parts {
		s.Parts[i].AccountCode = "NOPE"
	}
	r := e.runner(t, 10)
	id, err := r.SubmitSplit(ctx, s, financeActor)
	if err != nil {
		t.Fatal(err)
	}
	j := waitJob(t, e.db, id)
	items, _ := e.db.CorrectionItems(ctx, id)
	if o := corrections.ReplacementOutcome(items); o != corrections.OutcomeNotMade || j.State != corrections.StatePartial {
		t.Fatalf("outcome %s, state %s", o, j.State)
	}
	for _, it := range items {
		if it.ComponentID == b.ComponentID && (it.State != corrections.ItemSkipped || it.Problem != corrections.ProblemNotMade) {
			t.Errorf("the original's item: %+v", it)
		}
	}
	if got, _ := e.client(t).GetComponent(ctx, b.ComponentID); got.State != billing.StateProvisioned {
		t.Errorf("the original: %s", got.State)
	}
	if sure, maybe := e.applied.count(b.ComponentID); sure+maybe != 0 {
		t.Error("the original was cancelled")
	}
	// Free for another try, which goes through.
	if _, err := r.SubmitSplit(ctx, splitOf(t, b, "2"), financeActor); err != nil {
		t.Fatalf("split again: %v", err)
	}
}

// TestSplitUndo: a split undone makes the original again with its figures and days (its
// notes keyed as restored), cancels the parts, and is undone once only; a split one of
// whose parts is paid cannot be undone.
func TestSplitUndo(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 2*time.Second)
	ctx := context.Background()
	bills := e.seed(t, 2)
	r := e.runner(t, 10)
	today := time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)
	var jobs []string
	for _, b := range []billing.Bill{bills[0], bills[2]} {
		id, err := r.SubmitSplit(ctx, splitOf(t, b, "3"), financeActor)
		if err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, id)
	}
	for _, id := range jobs {
		if j := waitJob(t, e.db, id); j.State != corrections.StateDone {
			t.Fatalf("split: %s", j.State)
		}
	}
	orig := bills[0]
	u, err := r.PlanUndo(ctx, orig.NIS, orig.ComponentID, today)
	if err != nil || u.Refused != "" || len(u.Parts) != 3 {
		t.Fatalf("undo plan: %+v %v", u, err)
	}
	id, err := r.SubmitUndo(ctx, u, "salah pilih", financeActor)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.SubmitUndo(ctx, u, "lagi", financeActor); !errors.Is(err, corrections.ErrSplitTaken) {
		t.Errorf("second undo: %v", err)
	}
	if j := waitJob(t, e.db, id); j.State != corrections.StateDone {
		t.Fatalf("undo: %s", j.State)
	}
	var restored []billing.Bill
	for _, b := range atService(t, e, orig.NIS) {
		p, ok := corrections.PartOf(b.Notes)
		switch {
		case ok && p.Restored && p.Original == orig.ComponentID:
			restored = append(restored, b)
		case ok && p.Original == orig.ComponentID && b.State != billing.StateDeleted:
			t.Errorf("part %q left: %s", b.Name, b.State)
		}
	}
	if len(restored) != 1 {
		t.Fatalf("%d restored originals", len(restored))
	}
	got := restored[0]
	if got.Name != orig.Name || got.Amount != orig.Amount || got.Penalty != orig.Penalty || !got.Due.Equal(orig.Due) ||
		!got.Expiry.Equal(orig.Expiry) || !got.Active.Equal(orig.Active) || got.AccountCode != orig.AccountCode ||
		corrections.PlainNotes(got.Notes) != orig.Notes || got.State != billing.StateProvisioned {
		t.Errorf("restored %+v, original %+v", got, orig)
	}
	// The other split: a part paid, no undo.
	other := bills[2]
	var part billing.Bill
	for _, b := range atService(t, e, other.NIS) {
		if p, ok := corrections.PartOf(b.Notes); ok && p.Original == other.ComponentID && p.Part == 1 {
			part = b
		}
	}
	if _, err := e.client(t).Pay(ctx, billing.Payment{NIS: other.NIS, ComponentIDs: []string{part.ComponentID}}); err != nil {
		t.Fatal(err)
	}
	u, err = r.PlanUndo(ctx, other.NIS, other.ComponentID, today)
	if err != nil || u.Refused != corrections.KeyUndoPaid || !strings.Contains(u.Args[0].(string), part.Name) {
		t.Errorf("undo with a part paid: %+v %v", u, err)
	}
	if _, err := r.SubmitUndo(ctx, u, "x", financeActor); !errors.Is(err, corrections.ErrSplitTaken) {
		t.Errorf("submitted an undo refused: %v", err)
	}
	if n := len(auditEntries(t, e.db, "corrections.split.undo")); n != 1 {
		t.Errorf("%d undo audit entries", n)
	}
}
