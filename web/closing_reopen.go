package web

import (
	"errors"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/sekolah/portal/internal/closing"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/views/pages"
)

// reopenClosing unlocks a cashier's closed day for an admin, with the reason (audited);
// the cashier may then take payments and close the day again.
func (h *Handler) reopenClosing(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id := chi.URLParam(r, "id")
	reason := r.PostFormValue("reason")
	c, err := h.closing.Reopen(ctx, h.actor(r), id, reason)
	switch probs, isProblems := problem.As(err); {
	case err == nil:
		h.addFlash(w, r, "success", i18n.T(ctx, "closing.reopen_ok", c.CashierName, i18n.From(ctx).Day(c.Day)))
		h.redirect(w, r, closingURL(c.Day))
	case isProblems:
		v, status := h.closingView(ctx, c.Day)
		if status == http.StatusOK {
			status = http.StatusUnprocessableEntity
			for i := range v.Rows {
				if v.Rows[i].Cashier == c.Cashier {
					v.Rows[i].ReopenValue, v.Rows[i].ReopenError = reason, problemMessages(ctx, probs)[closing.FieldReason]
				}
			}
		}
		h.page(w, r, status, pages.Closing(v), pages.ClosingBody(v))
	case errors.Is(err, closing.ErrNotLocked):
		h.addFlash(w, r, "warning", i18n.T(ctx, "closing.err.not_locked"))
		h.redirect(w, r, closingURL(c.Day))
	case errors.Is(err, closing.ErrNotFound):
		h.renderError(w, r, http.StatusNotFound, i18n.T(ctx, "closing.err.not_found"))
	case errors.Is(err, closing.ErrNotAdmin):
		h.renderError(w, r, http.StatusForbidden, "")
	default:
		h.serverError(w, r, err)
	}
}
