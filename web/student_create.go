package web

import (
	"context"
	"errors"
	"net/http"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/students"
	"github.com/sekolah/portal/views/pages"
)

// createStudent creates one student at the service (and so in the roster); on a mistake
// the form comes back with what was typed.
func (h *Handler) createStudent(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	f := studentFormFrom(r)
	f.KeyNames = keyNameOptions(f.KeyName)
	f.Classes = h.knownClasses(r.Context())
	s := validateStudentForm(ctx, &f)
	status := http.StatusUnprocessableEntity
	if len(f.Errors) == 0 {
		uctx, cancel := h.upstreamCtx(ctx)
		created, err := h.writer.CreateStudents(uctx, h.actor(r), []billing.Student{s}, students.SourcePortal)
		cancel()
		switch {
		case err == nil:
			h.addFlash(w, r, "success", i18n.T(ctx, "students.created_ok", s.Name, s.NIS))
			h.redirect(w, r, studentURL(s.NIS))
			return
		case len(created) > 0:
			// At the service, but the roster write failed: the student exists; say so.
			h.log.Error("create student: roster", "nis", s.NIS, "err", err)
			h.addFlash(w, r, "warning", i18n.T(ctx, "students.roster_lag"))
			h.redirect(w, r, studentURL(s.NIS))
			return
		case errors.Is(err, billing.ErrValidation):
			h.studentRefused(ctx, &f, s.NIS, err)
		default:
			h.log.Warn("create student", "nis", s.NIS, "err", err)
			f.General = h.upstreamMessage(ctx, err, true)
			status = upstreamStatus(err)
		}
	}
	h.page(w, r, status, pages.StudentNew(f), pages.StudentFormCard(f))
}

// studentRefused puts the service's refusal of a new student beside the field it names.
// An existing NIS is told plainly, whatever words the service used (students.Refused
// decides, asking the service when its answer is not clear).
func (h *Handler) studentRefused(ctx context.Context, f *pages.StudentForm, nis string, err error) {
	uctx, cancel := h.upstreamCtx(ctx)
	refusal := h.students.Refused(uctx, nis, err)
	cancel()
	for field, msg := range refusal.Fields {
		f.Errors[field] = i18n.T(ctx, "students.err.service", msg)
	}
	switch {
	case refusal.Exists:
		f.Errors[students.FieldNIS] = i18n.T(ctx, "students.err.exists", nis)
	case len(f.Errors) == 0:
		f.General = h.upstreamMessage(ctx, err, true)
	}
}
