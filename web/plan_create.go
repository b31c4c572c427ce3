package web

import (
	"net/http"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/views/pages"
)

// createPlan checks the form and makes the plan; a form that is wrong answers 422 with
// what was typed.
func (h *Handler) createPlan(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if err := r.ParseForm(); err != nil {
		h.renderError(w, r, http.StatusBadRequest, "")
		return
	}
	f := planForm(r)
	p, probs, err := h.plans.Create(ctx, h.actor(r), f)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	if len(probs) > 0 {
		v := h.planFormView(ctx, "", "", f, problemMessages(ctx, probs))
		h.page(w, r, http.StatusUnprocessableEntity, pages.PlanForm(v), pages.PlanFormCard(v))
		return
	}
	h.addFlash(w, r, "success", i18n.T(ctx, "plans.created", p.Name, p.Code))
	h.redirect(w, r, planURL(p.ID))
}
