package plans_test

import (
	"context"
	"testing"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/corrections"
	"github.com/sekolah/portal/internal/plans"
	"github.com/sekolah/portal/internal/portaltest"
)

// TestPlanSplitLater: a plan's month split later into instalments (internal/corrections)
// stays the plan's: the kartu reads the parts as the month (what they ask together, how
// many are paid), the discounts report as one line, applying again makes nothing for it,
// a changed price leaves the parts alone (counted apart), and the apply's undo keeps them
// and says so; once the split is undone, the month made again is the plan's as before.
func TestPlanSplitLater(t *testing.T) {
	t.Parallel()
	p, _ := school(t, portaltest.Options{}, []string{"Kelas 7A"}, 2)
	ctx := context.Background()
	s := p.App.Plans
	plan := create(t, p, sppForm())
	st, err := p.App.Students.Get(ctx, "2600000")
	if err != nil {
		t.Fatal(err)
	}
	if _, probs, err := s.Grant(ctx, finance, st, nil, plans.DiscountForm{Plan: plan.ID, Kind: "percent", Value: "50", Reason: "sibling"}); err != nil || len(probs) > 0 {
		t.Fatalf("grant: %v %v", err, probs)
	}
	_, job := apply(t, p, plan, plans.Selection{Classes: []string{"Kelas 7A"}, From: plan.From, To: plan.To})
	if job.Done != 24 {
		t.Fatalf("apply: %+v", job)
	}

	// July's Rp 175.000 (halved) split in three, the first part paid.
	got, _ := atService(t, p, plan.Code)
	julyBill := got["2600000|2026-07"]
	sp, probs := corrections.PlanSplit(julyBill, corrections.SplitForm{Parts: "3", FirstDue: "2026-07-10", Reason: "Permintaan orang tua"})
	if len(probs) > 0 {
		t.Fatalf("split: %v", probs)
	}
	id, err := p.App.Corrections.SubmitSplit(ctx, sp, finance)
	if err != nil {
		t.Fatal(err)
	}
	if j := waitCorrection(t, p, id); j.State != corrections.StateDone {
		t.Fatalf("split job: %+v", j)
	}
	var parts []billing.Bill
	for b, err := range p.Billing.AllForStudent(ctx, "2600000", billing.Query{Limit: billing.MaxLimit}) {
		if err != nil {
			t.Fatal(err)
		}
		if pt, ok := corrections.PartOf(b.Notes); ok && !pt.Restored && b.State != billing.StateDeleted {
			parts = append(parts, b)
		}
	}
	if len(parts) != 3 {
		t.Fatalf("%d parts", len(parts))
	}
	first := parts[0]
	for _, b := range parts {
		if pt, _ := corrections.PartOf(b.Notes); pt.Part == 1 {
			first = b
		}
	}
	if _, err := p.Billing.Pay(ctx, billing.Payment{NIS: first.NIS, ComponentIDs: []string{first.ComponentID}}); err != nil {
		t.Fatal(err)
	}
	p.SyncLedger(t)

	k, err := s.Kartu(ctx, plan, "Kelas 7A")
	if err != nil {
		t.Fatal(err)
	}
	c := k.Rows[0].Cells[0]
	if c.Parts != 3 || c.PaidParts != 1 || c.Amount != 175_000 || c.Paid != first.Amount || c.State != plans.CellUnpaid || k.BilledCount[0] != 2 || k.PaidCount[0] != 0 {
		t.Fatalf("July's cell: %+v (billed %d, paid %d)", c, k.BilledCount[0], k.PaidCount[0])
	}
	if k.Rows[0].Paid != first.Amount {
		t.Fatalf("paid on the row: %d", k.Rows[0].Paid)
	}

	lines, pending, err := s.DiscountLines(ctx, "")
	if err != nil || pending != 0 || len(lines) != 12 {
		t.Fatalf("discount lines: %d, %d pending, %v", len(lines), pending, err)
	}
	for _, ln := range lines {
		if ln.Period.Month.String() == "2026-07" && (ln.Charged != 175_000 || ln.Off != 175_000 || ln.Paid) {
			t.Fatalf("July's line: %+v", ln)
		}
	}

	// Applied again: the split month exists.
	pv, _, err := s.Preview(ctx, plan, plans.Selection{Classes: []string{"Kelas 7A"}, From: plan.From, To: plan.To})
	if err != nil || pv.Create != 0 || pv.Exists != 24 {
		t.Fatalf("applied again: %d to make, %d there, %v", pv.Create, pv.Exists, err)
	}

	// The price changes: 11 + 12 months follow; the parts are left alone (the paid one
	// counted as paid).
	f := plans.FormOf(plan)
	f.Amount = "400.000"
	plan2, probs2, err := s.Update(ctx, finance, plan, f)
	if err != nil || len(probs2) > 0 {
		t.Fatal(err, probs2)
	}
	r, err := s.Reprice(ctx, []plans.Plan{plan2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Update) != 23 || r.Split != 2 || r.Paid != 1 || len(r.Cancel) != 0 {
		t.Fatalf("reprice: %d updates, %d split, %d paid, %d cancels", len(r.Update), r.Split, r.Paid, len(r.Cancel))
	}
	for _, fx := range r.Update {
		if _, ok := corrections.PartOf(fx.Bill.Notes); ok {
			t.Fatalf("a part corrected: %+v", fx.Bill)
		}
	}

	// The apply's undo cancels the 23 months it made and left whole, keeps the parts.
	j, err := s.Job(ctx, job.ID)
	if err != nil {
		t.Fatal(err)
	}
	u, err := s.Undo(ctx, j)
	if err != nil || len(u.Cancel) != 23 || u.Split != 3 || u.Cancelled != 0 || len(u.Paid) != 0 {
		t.Fatalf("undo: %d to cancel, %d parts, %d cancelled, %d paid (%v)", len(u.Cancel), u.Split, u.Cancelled, len(u.Paid), err)
	}

	// A split undone (July's cannot be: a part is paid) makes the month again, the
	// plan's as before: priced by the plan, and the apply's to undo.
	sep := got["2600001|2026-09"]
	sp, _ = corrections.PlanSplit(sep, corrections.SplitForm{Parts: "2", FirstDue: "2026-09-10", Reason: "Permintaan orang tua"})
	if id, err = p.App.Corrections.SubmitSplit(ctx, sp, finance); err != nil {
		t.Fatal(err)
	}
	waitCorrection(t, p, id)
	p.SyncLedger(t)
	undo, err := p.App.Corrections.PlanUndo(ctx, sep.NIS, sep.ComponentID, july)
	if err != nil || undo.Refused != "" {
		t.Fatalf("undo of the split: %v %s", err, undo.Refused)
	}
	if id, err = p.App.Corrections.SubmitUndo(ctx, undo, "Salah", finance); err != nil {
		t.Fatal(err)
	}
	if cj := waitCorrection(t, p, id); cj.State != corrections.StateDone {
		t.Fatalf("undo job: %+v", cj)
	}
	p.SyncLedger(t)
	k, _ = s.Kartu(ctx, plan2, "Kelas 7A")
	if c := k.Rows[1].Cells[2]; c.Parts != 1 || c.Amount != 350_000 || c.State != plans.CellUnpaid {
		t.Fatalf("September made again: %+v", c)
	}
	if again, _ := s.Reprice(ctx, []plans.Plan{plan2}, []string{"2600001"}); again.Split != 0 || len(again.Update) != 12 {
		t.Fatalf("after the split's undo: %d updates, %d split", len(again.Update), again.Split)
	}
	u, err = s.Undo(ctx, j)
	if err != nil || len(u.Cancel) != 23 || u.Split != 3 {
		t.Fatalf("undo after the split's undo: %d to cancel, %d parts (%v)", len(u.Cancel), u.Split, err)
	}
	found := false
	for _, b := range u.Cancel {
		if b.ComponentID == sep.ComponentID {
			t.Fatalf("the cancelled original offered again: %+v", b)
		}
		if pt, ok := corrections.PartOf(b.Notes); ok && pt.Restored && pt.Original == sep.ComponentID {
			found = true
		}
	}
	if !found {
		t.Fatal("September made again is not the apply's to undo")
	}
}
