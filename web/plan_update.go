package web

import (
	"net/http"
	"slices"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/plans"
	"github.com/sekolah/portal/views/pages"
)

// updatePlan checks the form and changes the plan; when what its components are made of
// changed (prices, days, months, names), the correction of its unpaid components is
// offered next.
func (h *Handler) updatePlan(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if err := r.ParseForm(); err != nil {
		h.renderError(w, r, http.StatusBadRequest, "")
		return
	}
	old := planFrom(r)
	f := planForm(r)
	p, probs, err := h.plans.Update(ctx, h.actor(r), old, f)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	if len(probs) > 0 {
		f.Code = old.Code
		v := h.planFormView(ctx, old.ID, old.Code, f, problemMessages(ctx, probs))
		h.page(w, r, http.StatusUnprocessableEntity, pages.PlanForm(v), pages.PlanFormCard(v))
		return
	}
	changed := plans.ChangedFields(old, p)
	h.addFlash(w, r, "success", i18n.T(ctx, "plans.updated", p.Name))
	if slices.ContainsFunc(changed, func(f string) bool { return f != plans.FieldName }) {
		h.redirect(w, r, planURL(p.ID, "/correct"))
		return
	}
	h.redirect(w, r, planURL(p.ID))
}
