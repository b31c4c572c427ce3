package web

import (
	"errors"
	"net/http"

	"github.com/sekolah/portal/internal/closing"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/views/pages"
)

// createClosing signs off and locks the signed-in cashier's cash of the form's day. A
// cash or reason that cannot be used answers 422 with what was typed kept; figures that
// changed since the form was shown, a payment still on its way and a day already closed
// answer 409 with the day as it is now.
func (h *Handler) createClosing(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	day, notice := h.closingDay(r)
	if notice != "" {
		v, _ := h.closingView(ctx, day)
		v.Notice = notice
		h.page(w, r, http.StatusUnprocessableEntity, pages.Closing(v), pages.ClosingBody(v))
		return
	}
	f := closingFormOf(r, day)
	c, err := h.closing.Close(ctx, h.actor(r), f)
	if err == nil {
		p := i18n.From(ctx)
		msg := p.T("closing.ok", p.Day(c.Day), i18n.Rupiah(c.Counted))
		if d := c.Difference(); d != 0 {
			msg = p.T("closing.ok_diff", p.Day(c.Day), i18n.Rupiah(c.Counted), pages.DiffText(ctx, d))
		}
		h.addFlash(w, r, "success", msg)
		h.redirect(w, r, closingURL(day))
		return
	}
	v, status := h.closingView(ctx, day)
	if status != http.StatusOK {
		h.page(w, r, status, pages.Closing(v), pages.ClosingBody(v))
		return
	}
	// What was typed stays; the figures signed are those the form showed unless they
	// changed (then the new ones, to be checked again).
	v.Form = pages.ClosingForm{Counted: f.Counted, Reason: f.Reason, Payments: f.Payments, Expected: f.Expected}
	var changed *closing.ChangedError
	var pending *closing.PendingError
	var locked *closing.LockedError
	status = http.StatusConflict
	switch probs, isProblems := problem.As(err); {
	case isProblems:
		status, v.Errors = http.StatusUnprocessableEntity, problemMessages(ctx, probs)
	case errors.As(err, &changed):
		v.Form.Payments, v.Form.Expected = changed.Drawer.Payments, changed.Drawer.Expected
		v.General = i18n.T(ctx, "closing.err.changed", changed.Drawer.Payments, i18n.Rupiah(changed.Drawer.Expected))
	case errors.As(err, &pending):
		v.General = i18n.T(ctx, "closing.err.pending", len(pending.Payments))
	case errors.As(err, &locked):
		v.General = i18n.T(ctx, "closing.err.locked", locked.Closing.CashierName, i18n.From(ctx).Day(locked.Closing.Day),
			pages.ClockOf(ctx, locked.Closing.SignedAt))
	case errors.Is(err, closing.ErrFuture):
		status, v.General = http.StatusUnprocessableEntity, i18n.T(ctx, "closing.err.future")
	default:
		h.serverError(w, r, err)
		return
	}
	h.page(w, r, status, pages.Closing(v), pages.ClosingBody(v))
}
