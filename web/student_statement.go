package web

import (
	"net/http"

	"github.com/sekolah/portal/views/pages"
)

// studentStatement is the printable statement of the student's bills.
func (h *Handler) studentStatement(w http.ResponseWriter, r *http.Request) {
	v, status := h.studentView(r)
	h.page(w, r, status, pages.StudentStatement(v), pages.StatementDoc(v))
}
