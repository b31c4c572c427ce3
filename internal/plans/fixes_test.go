package plans_test

import (
	"context"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/corrections"
	"github.com/sekolah/portal/internal/plans"
	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/students"
)

// waitCorrection waits until correction job id has ended.
func waitCorrection(t *testing.T, p *portaltest.Portal, id string) corrections.Job {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		j, err := p.App.Corrections.Job(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if !corrections.Running(j.State) {
			return j
		}
		if time.Now().After(deadline) {
			t.Fatalf("correction job %s did not end: %+v", id, j)
		}
	}
}

// correct submits the correction of r and waits for its jobs.
func correct(t *testing.T, p *portaltest.Portal, r plans.Reprice) {
	t.Helper()
	ids, err := p.App.Plans.Correct(context.Background(), finance, r, "Perubahan rencana", "/plans")
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if j := waitCorrection(t, p, id); j.State != corrections.StateDone {
			t.Fatalf("correction %s ended %s: %+v", id, j.State, j)
		}
	}
}

// TestPlanLife: a plan applied with a sibling's 50% and a fixed Rp 100.000 discount, one
// month paid; the kartu says so; the plan's price changes and its unpaid components are
// corrected (the paid one never), its months shortened (the months outside cancelled), a
// 100% scholarship granted later cancels that student's unpaid months; the discounts'
// lines add up; and the apply undone cancels what is still unpaid and keeps the paid.
func TestPlanLife(t *testing.T) {
	t.Parallel()
	engines(t, testPlanLife)
}

func testPlanLife(t *testing.T, postgres bool) {
	p, _ := school(t, portaltest.Options{Postgres: postgres}, []string{"Kelas 7A", "Kelas 8A"}, 3)
	ctx := context.Background()
	s := p.App.Plans
	plan := create(t, p, sppForm())
	roster := func(nis string) students.Student {
		st, err := p.App.Students.Get(ctx, nis)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	grant := func(nis string, f plans.DiscountForm) {
		if _, probs, err := s.Grant(ctx, finance, roster(nis), nil, f); err != nil || len(probs) > 0 {
			t.Fatalf("grant %s: %v %v", nis, err, probs)
		}
	}
	grant("2600000", plans.DiscountForm{Plan: plan.ID, Kind: "percent", Value: "50", Reason: "sibling"})
	grant("2601000", plans.DiscountForm{Kind: "amount", Value: "100.000", Reason: "hardship", From: "2026-09"})
	_, job := apply(t, p, plan, plans.Selection{Classes: []string{"Kelas 7A", "Kelas 8A"}, From: plan.From, To: plan.To})
	if job.Done != 72 || job.Discount != 12*175_000+10*100_000 {
		t.Fatalf("apply: %+v", job)
	}
	got, _ := atService(t, p, plan.Code)
	if got["2600000|2026-07"].Amount != 175_000 || got["2601000|2026-08"].Amount != 375_000 || got["2601000|2026-09"].Amount != 275_000 {
		t.Fatalf("discounted: %d %d %d", got["2600000|2026-07"].Amount, got["2601000|2026-08"].Amount, got["2601000|2026-09"].Amount)
	}
	july := got["2600001|2026-07"]
	if _, err := p.Billing.Pay(ctx, billing.Payment{NIS: july.NIS, ComponentIDs: []string{july.ComponentID}}); err != nil {
		t.Fatal(err)
	}
	p.SyncLedger(t)

	k, err := s.Kartu(ctx, plan, "Kelas 7A")
	if err != nil || len(k.Rows) != 3 || len(k.Periods) != 12 {
		t.Fatalf("kartu: %d rows, %v", len(k.Rows), err)
	}
	if c := k.Rows[1].Cells[0]; c.State != plans.CellPaid || c.PaidOn.IsZero() || k.PaidCount[0] != 1 {
		t.Fatalf("paid cell: %+v, paid count %d", c, k.PaidCount[0])
	}
	if c := k.Rows[0].Cells[5]; c.State != plans.CellUnpaid || c.Amount != 175_000 {
		t.Fatalf("unpaid cell: %+v", c)
	}

	// The price goes up: every unpaid component follows, with its discount; the paid one
	// is left alone.
	f := plans.FormOf(plan)
	f.Amount = "400.000"
	plan2, probs, err := s.Update(ctx, finance, plan, f)
	if err != nil || len(probs) > 0 {
		t.Fatal(err, probs)
	}
	r, err := s.Reprice(ctx, []plans.Plan{plan2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// 7A: 12 + 11 + 12 change (the paid July not); 8A's grade price did not change.
	if len(r.Update) != 35 || len(r.Cancel) != 0 || r.Paid != 1 || r.Unchanged != 36 {
		t.Fatalf("reprice: %d updates, %d cancels, %d paid, %d unchanged", len(r.Update), len(r.Cancel), r.Paid, r.Unchanged)
	}
	correct(t, p, r)
	got, _ = atService(t, p, plan.Code)
	if got["2600000|2027-01"].Amount != 200_000 || got["2600002|2027-01"].Amount != 400_000 || got["2600001|2026-07"].Amount != 350_000 {
		t.Fatalf("after the price change: %d %d %d", got["2600000|2027-01"].Amount, got["2600002|2027-01"].Amount, got["2600001|2026-07"].Amount)
	}
	if again, _ := s.Reprice(ctx, []plans.Plan{plan2}, nil); again.Count() != 0 {
		t.Fatalf("corrected twice: %d", again.Count())
	}

	// The plan ends in December now: the unpaid months after it are cancelled.
	f = plans.FormOf(plan2)
	f.To = "2026-12"
	plan3, _, err := s.Update(ctx, finance, plan2, f)
	if err != nil {
		t.Fatal(err)
	}
	r, err = s.Reprice(ctx, []plans.Plan{plan3}, nil)
	if err != nil || len(r.Cancel) != 36 || len(r.Update) != 0 {
		t.Fatalf("shortened: %d cancels, %d updates, %v", len(r.Cancel), len(r.Update), err)
	}
	correct(t, p, r)
	if got, _ = atService(t, p, plan.Code); len(got) != 36 {
		t.Fatalf("%d left after the shortening", len(got))
	}

	// A 100% scholarship granted now: that student's unpaid months are cancelled.
	grant("2600002", plans.DiscountForm{Plan: plan.ID, Kind: "percent", Value: "100", Reason: "scholarship"})
	r, err = s.Reprice(ctx, []plans.Plan{plan3}, []string{"2600002"})
	if err != nil || len(r.Cancel) != 6 {
		t.Fatalf("scholarship: %d cancels %v", len(r.Cancel), err)
	}
	correct(t, p, r)
	k, _ = s.Kartu(ctx, plan3, "Kelas 7A")
	for _, c := range k.Rows[2].Cells {
		if c.State != plans.CellWaived {
			t.Fatalf("the scholarship's cells: %+v", c)
		}
	}

	// The discounts' lines: 6 halved months, 4 of Rp 100.000 (September to December), 6
	// waived.
	lines, pending, err := s.DiscountLines(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	var off int64
	waived := 0
	for _, ln := range lines {
		off += ln.Off
		if ln.Waived {
			waived++
		}
	}
	if len(lines) != 16 || waived != 6 || pending != 0 || off != 6*200_000+4*100_000+6*400_000 {
		t.Fatalf("discount lines: %d, %d waived, %d pending, off %d", len(lines), waived, pending, off)
	}

	// The apply undone: what is unpaid is cancelled, the paid July kept.
	j, err := s.Job(ctx, job.ID)
	if err != nil {
		t.Fatal(err)
	}
	u, err := s.Undo(ctx, j)
	if err != nil || len(u.Cancel) != 29 || len(u.Paid) != 1 || u.Cancelled != 42 {
		t.Fatalf("undo: %d to cancel, %d paid, %d cancelled already (%v)", len(u.Cancel), len(u.Paid), u.Cancelled, err)
	}
	id, err := s.UndoApply(ctx, finance, plan3, j, "Salah terap", "/plans")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.UndoApply(ctx, finance, plan3, j, "Salah terap", "/plans"); err != plans.ErrUndone {
		t.Fatalf("undone twice: %v", err)
	}
	if cj := waitCorrection(t, p, id); cj.Done != 29 || cj.Skipped != 1 {
		t.Fatalf("undo job: %+v", cj)
	}
	if got, _ = atService(t, p, plan.Code); len(got) != 1 || got["2600001|2026-07"].State != billing.StatePaid {
		t.Fatalf("after the undo: %d left", len(got))
	}
}
