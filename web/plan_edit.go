package web

import (
	"net/http"

	"github.com/sekolah/portal/internal/plans"
	"github.com/sekolah/portal/views/pages"
)

// editPlan is the form to change a plan (its code stays).
func (h *Handler) editPlan(w http.ResponseWriter, r *http.Request) {
	p := planFrom(r)
	v := h.planFormView(r.Context(), p.ID, p.Code, plans.FormOf(p), nil)
	h.page(w, r, http.StatusOK, pages.PlanForm(v), pages.PlanFormCard(v))
}
