package web

import (
	"net/http"

	"github.com/sekolah/portal/views/pages"
)

// confirmDeleteStudent is the confirm step: what will go, and the button that does it. A
// student with payments cannot be deleted: the page says so and offers no button.
func (h *Handler) confirmDeleteStudent(w http.ResponseWriter, r *http.Request) {
	v := pages.StudentDeleteView{Student: studentInfo(studentFrom(r))}
	status := h.deletable(r, &v)
	h.page(w, r, status, pages.StudentDelete(v), pages.StudentDeleteCard(v))
}

// deletable asks whether the student has payments (students.HasPayments, the one place
// that decides) and marks the view; the status is 200, or the service's failure.
func (h *Handler) deletable(r *http.Request, v *pages.StudentDeleteView) int {
	ctx := r.Context()
	uctx, cancel := h.upstreamCtx(ctx)
	defer cancel()
	has, err := h.studentHasPayments(uctx, v.Student.NIS)
	if err != nil {
		h.log.Warn("student payments", "nis", v.Student.NIS, "err", err)
		v.Unknown, v.Error = true, h.upstreamMessage(ctx, err, false)
		return upstreamStatus(err)
	}
	v.HasPayments = has
	return http.StatusOK
}
