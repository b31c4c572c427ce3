package plans

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/sekolah/portal/internal/audit"
	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/corrections"
	"github.com/sekolah/portal/internal/store"
)

// What exists at the service is changed by correction jobs (internal/corrections: its
// steps, its runner, its page): a plan's undo cancels what an apply made; a plan or a
// discount changed offers to correct the unpaid components the plan made. Paid ones are
// never touched.

// CorrectionSource is the Source of the correction jobs a plan makes; their Field says
// which (FixUndo, FixChange) and their Selection is the page they came from.
const CorrectionSource = "plan"

// The kinds of a plan's correction job (its Field).
const (
	FixUndo   = "undo"   // an apply undone
	FixChange = "change" // the plan or a discount changed
)

// ErrUndone is Undo's answer for a job undone already (or being undone).
var ErrUndone = errors.New("plans: the apply was undone already")

// UndoPlan is what undoing an apply does: the components it made still unpaid are
// cancelled, those paid are kept (and listed), those cancelled since are left alone. A
// component split since into instalments (internal/corrections) is no longer what the
// apply made: its parts are left alone and counted (Split), for the split's own undo to
// decide; one whose split was undone is the apply's again (the original made again).
type UndoPlan struct {
	Cancel, Paid []billing.Bill
	Cancelled    int
	Split        int   // the live parts of components split since
	Amount       int64 // of those to cancel
}

// Undoable reports whether an apply job may be undone: finished, not undone yet.
func Undoable(j Job) bool { return !Running(j.State) && j.UndoJob == "" && j.Done > 0 }

// Undo reads what undoing apply job j would do, from the components the job made (the
// ledger's records of them now).
func (s *Service) Undo(ctx context.Context, j Job) (UndoPlan, error) {
	items, err := s.db.PlanItems(ctx, j.ID, "done")
	if err != nil {
		return UndoPlan{}, err
	}
	var nis []string
	seen := map[string]bool{}
	for _, it := range items {
		if !seen[it.NIS] {
			seen[it.NIS] = true
			nis = append(nis, it.NIS)
		}
	}
	comps, err := s.ledger.PlanComponents(ctx, j.PlanCode, nis)
	if err != nil {
		return UndoPlan{}, err
	}
	byID := map[string]billing.Bill{}
	parts, restored := map[string]int{}, map[string]billing.Bill{} // by the original's id
	for _, c := range comps {
		byID[c.Bill.ComponentID] = c.Bill
		if pt, ok := corrections.PartOf(c.Bill.Notes); ok && c.Bill.State != billing.StateDeleted {
			if pt.Restored {
				restored[pt.Original] = c.Bill
			} else {
				parts[pt.Original]++
			}
		}
	}
	var u UndoPlan
	for _, it := range items {
		b, ok := byID[it.ComponentID]
		if ok && b.State == billing.StateDeleted {
			if n := parts[it.ComponentID]; n > 0 {
				u.Split += n
				continue
			}
			if again, ok := restored[it.ComponentID]; ok {
				b = again
			}
		}
		switch {
		case !ok:
			// Not in the ledger yet (the sync brings it): cancelled all the same, by its id
			// (the correction job reads it at the service).
			if it.ComponentID == "" {
				continue
			}
			b = billing.Bill{ComponentID: it.ComponentID, NIS: it.NIS, StudentName: it.StudentName, Name: it.Name, Amount: it.Amount}
			fallthrough
		case b.State == billing.StateProvisioned || b.State == billing.StateExpired:
			u.Cancel = append(u.Cancel, b)
			u.Amount += b.Amount
		case b.State == billing.StatePaid:
			u.Paid = append(u.Paid, b)
		default:
			u.Cancelled++
		}
	}
	return u, nil
}

// UndoApply cancels, as a correction job, what apply job j of plan p made and is still
// unpaid, with reason; the paid components are kept and listed on its page. back is the
// page the correction job's page leads back to. An apply is undone once (ErrUndone).
func (s *Service) UndoApply(ctx context.Context, actor auth.Actor, p Plan, j Job, reason, back string) (string, error) {
	claim := "claim:" + store.NewID()
	ok, err := s.db.ClaimPlanUndo(ctx, j.ID, claim)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", ErrUndone
	}
	u, err := s.Undo(ctx, j)
	var id string
	if err == nil {
		req := corrections.Request{Kind: corrections.KindCancel, Source: CorrectionSource, Field: FixUndo, Reason: reason,
			Selection: back, AmountBefore: u.Amount, LeftOut: u.Cancelled, Actor: actor}
		for _, b := range u.Cancel {
			req.Items = append(req.Items, corrections.Item{Component: b})
		}
		for _, b := range u.Paid {
			req.Items = append(req.Items, corrections.Item{Component: b, Skip: corrections.ProblemPaid})
		}
		id, err = s.fixes.Submit(ctx, req)
	}
	if err != nil {
		return "", errors.Join(err, s.db.SwapPlanUndo(context.WithoutCancel(ctx), j.ID, claim, ""))
	}
	if err := s.db.SwapPlanUndo(ctx, j.ID, claim, id); err != nil {
		return id, err
	}
	if err := s.auditor.Record(ctx, s.actorEntry(actor, auditPlanUndo.With(audit.Name(p.Name), planArg(p.Code),
		audit.Count(len(u.Cancel)), audit.Total(u.Amount), audit.Reason(reason), audit.Job(id)), j.ID)); err != nil {
		s.log.Error("plans: audit an undo", "job", j.ID, "err", err)
	}
	return id, nil
}

// actorEntry is e by actor about target, succeeded (audit.Log dates it).
func (s *Service) actorEntry(actor auth.Actor, e audit.Entry, target string) audit.Entry {
	e.Actor, e.Outcome, e.Target = actor.Audit(), audit.OK, target
	return e
}

// Why a component of a plan is left out of a correction (catalogue keys).
const (
	LeftPaid      = corrections.KeyPaid
	LeftUnchanged = "corrections.left.unchanged"
)

// Fix is one unpaid component of a plan and what the plan, with the student's discounts,
// makes of it now: an update of the fields that differ, or its cancel (its period is no
// longer the plan's, or a 100% discount waives it).
type Fix struct {
	Plan   Plan
	Bill   billing.Bill
	After  billing.ComponentInput
	Update billing.ComponentUpdate
	Cancel bool
}

// Reprice is what correcting the plans' unpaid components would do.
type Reprice struct {
	Update, Cancel []Fix
	// Paid are the paid components (never touched); Unchanged those already right; Split
	// the parts a period was split into (internal/corrections' instalments: their amounts
	// and days are the split's, left as they are).
	Paid, Unchanged, Split    int
	AmountBefore, AmountAfter int64 // of the updates
	CancelAmount              int64
	Fingerprint               string
}

// Count is how many components would change.
func (r Reprice) Count() int { return len(r.Update) + len(r.Cancel) }

// Reprice reads what the plans ps, with the students' discounts as they are now, make of
// their unpaid components (only the students nis' when nis is not nil).
func (s *Service) Reprice(ctx context.Context, ps []Plan, nis []string) (Reprice, error) {
	var r Reprice
	h := sha256.New()
	for _, p := range ps {
		comps, err := s.ledger.PlanComponents(ctx, p.Code, nis)
		if err != nil {
			return r, err
		}
		var who []string
		for _, c := range comps {
			if len(who) == 0 || who[len(who)-1] != c.NIS {
				who = append(who, c.NIS)
			}
		}
		roster, err := s.db.StudentsByNIS(ctx, who)
		if err != nil {
			return r, err
		}
		ds, err := s.Discounts(ctx, who)
		if err != nil {
			return r, err
		}
		byNIS := map[string][]Discount{}
		for _, d := range ds {
			byNIS[d.NIS] = append(byNIS[d.NIS], d)
		}
		for _, c := range comps {
			b := c.Bill
			switch part, split := corrections.PartOf(b.Notes); {
			case b.State == billing.StateDeleted:
				continue
			case b.State == billing.StatePaid:
				r.Paid++
				continue
			case split && !part.Restored:
				r.Split++
				continue
			}
			f := Fix{Plan: p, Bill: b}
			at, _ := ParseMonth(c.Period)
			pe, ok := p.Period(at)
			class := roster[c.NIS].Description // unknown to the roster: the plan's own amount
			var charged int64
			if ok {
				_, charged, _ = p.charge(class, pe, byNIS[c.NIS])
			}
			if !ok || charged == 0 {
				f.Cancel = true
				r.Cancel = append(r.Cancel, f)
				r.CancelAmount += b.Amount
				fmt.Fprintf(h, "cancel %s %d %s\n", b.ComponentID, b.Amount, b.State)
				continue
			}
			f.After = billing.ComponentInput{NIS: b.NIS, AccountCode: p.AccountCode, Name: pe.Name, Due: pe.Due, Expiry: pe.Expiry,
				Active: pe.Active, Amount: charged, Penalty: p.Penalty, Notes: b.Notes}
			f.Update = corrections.Changes(b, f.After)
			if corrections.Empty(f.Update) {
				r.Unchanged++
				continue
			}
			r.Update = append(r.Update, f)
			r.AmountBefore += b.Amount
			r.AmountAfter += charged
			fmt.Fprintf(h, "update %s %d %d %s %s %s\n", b.ComponentID, b.Amount, charged, b.Due.Format("2006-01-02"),
				b.Expiry.Format("2006-01-02"), b.State)
		}
	}
	r.Fingerprint = hex.EncodeToString(h.Sum(nil)[:16])
	return r, nil
}

// Names are the plans r corrects, by name and by code (for the job's page and the log).
func (r Reprice) Names() (names, codes string) {
	var ns, cs []string
	for _, fs := range [][]Fix{r.Update, r.Cancel} {
		for _, f := range fs {
			if !slices.Contains(cs, f.Plan.Code) {
				ns, cs = append(ns, f.Plan.Name), append(cs, f.Plan.Code)
			}
		}
	}
	return strings.Join(ns, ", "), strings.Join(cs, ",")
}

// Correct submits the correction jobs of r (an update job, a cancel job, or both), as
// actor, with reason for the cancels; back is the page their pages lead back to. It
// returns the jobs' ids, updates first.
func (s *Service) Correct(ctx context.Context, actor auth.Actor, r Reprice, reason, back string) ([]string, error) {
	var ids []string
	name, code := r.Names()
	if len(r.Update) > 0 {
		req := corrections.Request{Kind: corrections.KindUpdate, Source: CorrectionSource, Field: FixChange, Value: name,
			Selection: back, AmountBefore: r.AmountBefore, AmountAfter: r.AmountAfter, LeftOut: r.Paid + r.Unchanged, Actor: actor}
		for _, f := range r.Update {
			req.Items = append(req.Items, corrections.Item{Component: f.Bill, Update: f.Update})
		}
		id, err := s.fixes.Submit(ctx, req)
		if err != nil {
			return ids, err
		}
		ids = append(ids, id)
	}
	if len(r.Cancel) > 0 {
		req := corrections.Request{Kind: corrections.KindCancel, Source: CorrectionSource, Field: FixChange, Value: name,
			Reason: reason, Selection: back, AmountBefore: r.CancelAmount, Actor: actor}
		for _, f := range r.Cancel {
			req.Items = append(req.Items, corrections.Item{Component: f.Bill})
		}
		id, err := s.fixes.Submit(ctx, req)
		if err != nil {
			return ids, err
		}
		ids = append(ids, id)
	}
	if len(ids) > 0 {
		if err := s.auditor.Record(ctx, s.actorEntry(actor, auditPlanCorrect.With(audit.Name(name), planArg(code),
			audit.Count(r.Count()), audit.Job(strings.Join(ids, ","))), code)); err != nil {
			s.log.Error("plans: audit a correction", "plan", code, "err", err)
		}
	}
	return ids, nil
}

// PlansOf are the plans a discount of student touches: its plan, or every plan.
func (s *Service) PlansOf(ctx context.Context, planID string) ([]Plan, error) {
	all, err := s.Plans(ctx)
	if err != nil || planID == "" {
		return all, err
	}
	all = slices.DeleteFunc(all, func(p Plan) bool { return p.ID != planID })
	return all, nil
}
