package web

import (
	"errors"
	"net/http"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/views/pages"
)

// deleteStudent removes the student at the service and from the roster. Without the
// confirm field it only asks; the service refuses once a payment exists, and the page
// says so plainly.
func (h *Handler) deleteStudent(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	s := studentFrom(r)
	v := pages.StudentDeleteView{Student: studentInfo(s)}
	if r.PostFormValue("confirm") != "yes" {
		h.page(w, r, http.StatusOK, pages.StudentDelete(v), pages.StudentDeleteCard(v))
		return
	}
	uctx, cancel := h.upstreamCtx(ctx)
	err := h.writer.DeleteStudent(uctx, h.actor(r), s.NIS)
	cancel()
	status := http.StatusOK
	switch {
	case err == nil:
		h.addFlash(w, r, "success", i18n.T(ctx, "students.deleted_ok", s.Name, s.NIS))
		h.redirect(w, r, "/students")
		return
	case errors.Is(err, billing.ErrNotFound):
		// Someone else deleted it meanwhile; the roster entry is all that is left.
		if derr := h.db.DeleteStudent(ctx, s.NIS); derr != nil {
			h.serverError(w, r, derr)
			return
		}
		h.addFlash(w, r, "info", i18n.T(ctx, "students.deleted_already", s.NIS))
		h.redirect(w, r, "/students")
		return
	case errors.Is(err, billing.ErrValidation):
		// The contract's only refusal of a delete: a paid component exists.
		v.Error, status = i18n.T(ctx, "students.delete.has_payments"), http.StatusConflict
	default:
		var apiErr *billing.APIError
		if !errors.As(err, &apiErr) && !errors.Is(err, billing.ErrTimeout) && !errors.Is(err, billing.ErrUnavailable) {
			// Not the service's answer: the roster write after a successful delete failed.
			h.serverError(w, r, err)
			return
		}
		h.log.Warn("delete student", "nis", s.NIS, "err", err)
		v.Error, status = h.upstreamMessage(ctx, err, true), upstreamStatus(err)
	}
	h.page(w, r, status, pages.StudentDelete(v), pages.StudentDeleteCard(v))
}
