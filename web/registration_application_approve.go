package web

import (
	"errors"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/sekolah/portal/internal/changes"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/internal/registration"
	"github.com/sekolah/portal/views/pages"
)

// approveApplication sends a held application to the service as the form would have: the
// student and the bill at once, by the person approving (audited).
func (h *Handler) approveApplication(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	uctx, cancel := h.upstreamCtx(ctx)
	defer cancel()
	rec, err := h.registration.Approve(uctx, h.actor(r), chi.URLParam(r, "id"))
	if rec.BillID != "" {
		if err != nil {
			h.log.Error("application: registered at the service, but noting it failed", "nis", rec.NIS, "bill", rec.BillID, "err", err)
		}
		h.addFlash(w, r, "success", i18n.T(ctx, "applications.approved", rec.StudentName, rec.NIS))
		h.redirect(w, r, "/registrations/applications")
		return
	}
	ps, isProblems := problem.As(err)
	v := pages.ApplicationsView{AlertKind: "error"}
	status := http.StatusUnprocessableEntity
	switch {
	case errors.Is(err, registration.ErrApplicationGone):
		h.notFound(w, r)
		return
	case errors.Is(err, registration.ErrNotPending):
		v.Alert, v.AlertKind, status = i18n.T(ctx, "applications.err.not_pending"), "warning", http.StatusConflict
	case isProblems && ps.Has("nis"):
		v.Alert = i18n.T(ctx, "applications.err.nis_taken")
	case isProblems, errors.Is(err, registration.ErrTemplateGone):
		v.Alert = i18n.T(ctx, "applications.err.template")
	case changes.Ambiguous(err):
		h.log.Warn("application: approval got no answer", "err", err)
		v.Alert, v.AlertKind, status = i18n.T(ctx, "applications.err.uncertain"), "warning", upstreamStatus(err)
	default:
		h.log.Warn("application: approval failed at the service", "err", err)
		v.Alert, status = h.upstreamMessage(ctx, err, true), upstreamStatus(err)
	}
	h.renderApplications(w, r, status, v)
}
