package web

import (
	"errors"
	"net/http"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/students"
	"github.com/sekolah/portal/views/pages"
)

// updateStudent sends the whole record (PUT /bill) and mirrors it in the roster; the NIS
// comes from the address, never from the form.
func (h *Handler) updateStudent(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	f := studentFormFrom(r)
	f.Edit, f.NIS = true, studentFrom(r).NIS
	f.KeyNames = keyNameOptions(f.KeyName)
	f.Classes = h.knownClasses(r.Context())
	s := validateStudentForm(ctx, &f)
	status := http.StatusUnprocessableEntity
	if len(f.Errors) == 0 {
		uctx, cancel := h.upstreamCtx(ctx)
		updated, err := h.writer.UpdateStudent(uctx, h.actor(r), s)
		cancel()
		switch {
		case err == nil:
			h.addFlash(w, r, "success", i18n.T(ctx, "students.updated_ok", s.Name))
			h.redirect(w, r, studentURL(s.NIS))
			return
		case updated.NIS != "":
			h.log.Error("update student: roster", "nis", s.NIS, "err", err)
			h.addFlash(w, r, "warning", i18n.T(ctx, "students.roster_lag"))
			h.redirect(w, r, studentURL(s.NIS))
			return
		case errors.Is(err, billing.ErrValidation):
			for field, msg := range students.ReadRefusal(err).Fields {
				f.Errors[field] = i18n.T(ctx, "students.err.service", msg)
			}
			if len(f.Errors) == 0 {
				f.General = h.upstreamMessage(ctx, err, true)
			}
		default:
			h.log.Warn("update student", "nis", s.NIS, "err", err)
			f.General = h.upstreamMessage(ctx, err, true)
			status = upstreamStatus(err)
		}
	}
	h.page(w, r, status, pages.StudentEdit(f), pages.StudentFormCard(f))
}
