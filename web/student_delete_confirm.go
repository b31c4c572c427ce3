package web

import (
	"net/http"

	"github.com/sekolah/portal/views/pages"
)

// confirmDeleteStudent is the confirm step: what will go, and the button that does it.
func (h *Handler) confirmDeleteStudent(w http.ResponseWriter, r *http.Request) {
	v := pages.StudentDeleteView{Student: studentInfo(studentFrom(r))}
	h.page(w, r, http.StatusOK, pages.StudentDelete(v), pages.StudentDeleteCard(v))
}
