package corrections

import (
	"context"
	"errors"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/changes"
)

// ErrPaidMeanwhile is Cancel's answer when the service refused because some of the
// components were paid since the page was read: nothing was cancelled.
var ErrPaidMeanwhile = errors.New("corrections: paid meanwhile")

// CancelResult is what a cancel did: the components it cancelled, those the service had
// cancelled already (the goal holds), and those found paid meanwhile.
type CancelResult struct {
	Cancelled, Already []string
	Paid               []billing.Bill
}

// Cancel cancels the components ids now, with reason, through the writer (all or none at
// the service). When the service refuses, each is read: one cancelled already counts as
// done (and is recorded so in the ledger), the rest are sent again once; one paid
// meanwhile stops it with ErrPaidMeanwhile, nothing cancelled.
func Cancel(ctx context.Context, w *changes.Writer, actor auth.Actor, ids []string, reason, detail string) (CancelResult, error) {
	var res CancelResult
	_, err := w.CancelComponents(ctx, actor, ids, reason, detail)
	if err == nil {
		res.Cancelled = ids
		return res, nil
	}
	if !errors.Is(err, billing.ErrValidation) {
		return res, err
	}
	var rest []string
	for _, id := range ids {
		b, gerr := w.Client.GetComponent(ctx, id)
		if gerr != nil {
			return res, err // the refusal stands: nothing known better
		}
		switch b.State {
		case billing.StateDeleted:
			res.Already = append(res.Already, id)
		case billing.StatePaid:
			res.Paid = append(res.Paid, b)
		default:
			rest = append(rest, id)
		}
	}
	switch {
	case len(res.Paid) > 0:
		return res, ErrPaidMeanwhile
	case len(res.Already) == 0:
		return res, err // refused for another reason
	}
	if w.Ledger != nil {
		if _, lerr := w.Ledger.MarkDeleted(context.WithoutCancel(ctx), res.Already); lerr != nil && w.Nudge != nil {
			w.Nudge()
		}
	}
	if len(rest) > 0 {
		if _, err := w.CancelComponents(ctx, actor, rest, reason, detail); err != nil {
			return res, err
		}
		res.Cancelled = rest
	}
	return res, nil
}
