package corrections

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/ledger"
)

// LeavePlan is what leaving the school on a day does to a student's bills: their unpaid
// components due after that day are offered for cancelling (they are not owed: the
// student was no longer at the school), those due on or before it stay owed (their
// arrears: kept, and listed in the alumni arrears), paid ones are history.
type LeavePlan struct {
	NIS string
	On  time.Time
	// Cancel are the unpaid components due after On; Kept the unpaid ones due on or before.
	Cancel, Kept             []billing.Bill
	CancelAmount, KeptAmount int64
}

// Leaving reads from the ledger what leaving on day on does to student nis's bills.
func Leaving(ctx context.Context, l *ledger.Ledger, nis string, on time.Time) (LeavePlan, error) {
	p := LeavePlan{NIS: nis, On: billing.DayIn(on, time.UTC)}
	for b, err := range l.AllForStudent(ctx, nis, billing.Query{}) {
		if err != nil {
			return p, fmt.Errorf("corrections: the bills of %s: %w", nis, err)
		}
		if Refusal(b) != "" {
			continue // paid or cancelled
		}
		if billing.DayIn(b.Due, time.UTC).After(p.On) {
			p.Cancel = append(p.Cancel, b)
			p.CancelAmount += b.Amount
		} else {
			p.Kept = append(p.Kept, b)
			p.KeptAmount += b.Amount
		}
	}
	byDue := func(a, b billing.Bill) int { return a.Due.Compare(b.Due) }
	slices.SortStableFunc(p.Cancel, byDue)
	slices.SortStableFunc(p.Kept, byDue)
	return p, nil
}

// Request is the cancel job of the plan's components among ids (those the person confirmed
// and still due after the day: one paid or cancelled since the preview is left out), with
// reason; nil when none is left.
func (p LeavePlan) Request(ids []string, reason string) *Request {
	req := Request{Kind: KindCancel, Source: SourceLeaver, Reason: reason, Selection: "/students/" + p.NIS}
	for _, b := range p.Cancel {
		if slices.Contains(ids, b.ComponentID) {
			req.Items = append(req.Items, Item{Component: b})
			req.AmountBefore += b.Amount
		}
	}
	if len(req.Items) == 0 {
		return nil
	}
	req.LeftOut = len(p.Cancel) - len(req.Items)
	return &req
}

// Leaving reads what leaving on day on does to student nis's bills (see the function).
func (r *Runner) Leaving(ctx context.Context, nis string, on time.Time) (LeavePlan, error) {
	return Leaving(ctx, r.steps.Writer.Ledger, nis, on)
}
