package web

import (
	"net/http"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/changes"
	"github.com/sekolah/portal/internal/component"
	"github.com/sekolah/portal/internal/corrections"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/views/pages"
)

// updateComponent checks the form with the component rules (the same as creating one),
// sends only the fields that changed, and returns to where the person came from. A paid
// or cancelled component is refused with words; a timeout says the outcome is unknown.
func (h *Handler) updateComponent(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if err := r.ParseForm(); err != nil {
		h.renderError(w, r, http.StatusBadRequest, "")
		return
	}
	b := componentFrom(r)
	var in component.Input
	vals := map[string]string{}
	for _, col := range component.Fields {
		in.Set(col, r.PostForm.Get(col))
		vals[col] = r.PostForm.Get(col)
	}
	v := h.componentEditView(r, b, vals)
	status := http.StatusUnprocessableEntity
	if v.Refused != "" {
		h.page(w, r, http.StatusConflict, pages.ComponentEdit(v), pages.ComponentEditCard(v))
		return
	}
	checked, probs := component.Validate(b.NIS, in, h.cfg.AccountCodes)
	u := corrections.Changes(b, checked)
	switch {
	case len(probs) > 0:
		v.Errors = problemMessages(ctx, probs)
	case corrections.Empty(u):
		v.General = i18n.T(ctx, "corrections.edit.nothing")
	default:
		uctx, cancel := h.upstreamCtx(ctx)
		_, err := h.writer.UpdateComponent(uctx, h.actor(r), b.ComponentID, u, "form")
		cancel()
		if err == nil {
			h.addFlash(w, r, "success", i18n.T(ctx, "corrections.edit.done", b.Name, v.Student.Name))
			h.redirect(w, r, v.Back)
			return
		}
		h.log.Warn("update component", "component", b.ComponentID, "err", err)
		v.General, status = h.upstreamMessage(ctx, err, true), upstreamStatus(err)
		if changes.Ambiguous(err) {
			status = http.StatusGatewayTimeout
		} else if st := h.freshState(r, b.ComponentID); st.ComponentID != "" && corrections.Refusal(st) != "" {
			// Paid at a bank, or cancelled, since the page was read: say which.
			v.General = refusalText(ctx, st)
		}
	}
	h.page(w, r, status, pages.ComponentEdit(v), pages.ComponentEditCard(v))
}

// freshState reads the component at the service (zero when it cannot), and so brings the
// ledger up to date with it: what a refusal is about when the ledger has not heard yet.
func (h *Handler) freshState(r *http.Request, id string) billing.Bill {
	uctx, cancel := h.upstreamCtx(r.Context())
	defer cancel()
	b, err := h.writer.RefreshComponent(uctx, id)
	if err != nil {
		return billing.Bill{}
	}
	return b
}
