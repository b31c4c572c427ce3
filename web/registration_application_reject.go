package web

import (
	"errors"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/internal/registration"
	"github.com/sekolah/portal/views/pages"
)

// rejectApplication closes a held application with the reason typed (audited); nothing
// goes to the service.
func (h *Handler) rejectApplication(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id, reason := chi.URLParam(r, "id"), r.PostFormValue("reason")
	err := h.registration.Reject(ctx, h.actor(r), id, reason)
	if err == nil {
		h.addFlash(w, r, "success", i18n.T(ctx, "applications.rejected"))
		h.redirect(w, r, "/registrations/applications")
		return
	}
	ps, isProblems := problem.As(err)
	switch {
	case isProblems:
		h.renderApplications(w, r, http.StatusUnprocessableEntity, pages.ApplicationsView{RejectID: id, RejectReason: reason,
			RejectError: problemMessages(ctx, ps)["reason"]})
	case errors.Is(err, registration.ErrApplicationGone):
		h.notFound(w, r)
	case errors.Is(err, registration.ErrNotPending):
		h.renderApplications(w, r, http.StatusConflict, pages.ApplicationsView{Alert: i18n.T(ctx, "applications.err.not_pending"), AlertKind: "warning"})
	default:
		h.serverError(w, r, err)
	}
}
