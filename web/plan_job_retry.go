package web

import (
	"net/http"

	"github.com/sekolah/portal/internal/i18n"
)

// retryPlanJob sends again what a finished apply gave up unsent.
func (h *Handler) retryPlanJob(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	p := planFrom(r)
	j, ok := h.planJobFrom(w, r)
	if !ok {
		return
	}
	n, err := h.plans.Retry(ctx, j.ID)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	h.addFlash(w, r, "success", i18n.T(ctx, "plans.job.retried", n))
	h.redirect(w, r, planJobURL(p.ID, j.ID))
}

// hurryPlanJob asks an apply that waits for the service to try again now.
func (h *Handler) hurryPlanJob(w http.ResponseWriter, r *http.Request) {
	p := planFrom(r)
	j, ok := h.planJobFrom(w, r)
	if !ok {
		return
	}
	if err := h.plans.Hurry(r.Context(), j.ID); err != nil {
		h.serverError(w, r, err)
		return
	}
	h.redirect(w, r, planJobURL(p.ID, j.ID))
}
