package web

import (
	"errors"
	"net/http"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/changes"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/views/pages"
)

// deleteStudent removes the student at the service and from the roster. Without the
// confirm field it only asks. A student with payments is not sent to the service at all:
// the page says why, without a button (the service would refuse anyway).
func (h *Handler) deleteStudent(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	s := studentFrom(r)
	v := pages.StudentDeleteView{Student: studentInfo(s)}
	if status := h.deletable(r, &v); status != http.StatusOK || v.HasPayments || r.PostFormValue("confirm") != "yes" {
		if v.HasPayments && r.PostFormValue("confirm") == "yes" {
			status = http.StatusConflict
		}
		h.page(w, r, status, pages.StudentDelete(v), pages.StudentDeleteCard(v))
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
	case errors.Is(err, changes.ErrStudentGone):
		// Someone else deleted it meanwhile; the writer took it out of the roster and the
		// ledger all the same.
		h.addFlash(w, r, "info", i18n.T(ctx, "students.deleted_already", s.NIS))
		h.redirect(w, r, "/students")
		return
	case errors.Is(err, billing.ErrValidation):
		// The contract's only refusal of a delete: a payment recorded since the check.
		v.HasPayments, status = true, http.StatusConflict
	default:
		if !isUpstream(err) {
			// Not the service's answer: the roster write after a successful delete failed.
			h.serverError(w, r, err)
			return
		}
		h.log.Warn("delete student", "nis", s.NIS, "err", err)
		v.Error, status = h.upstreamMessage(ctx, err, true), upstreamStatus(err)
	}
	h.page(w, r, status, pages.StudentDelete(v), pages.StudentDeleteCard(v))
}
