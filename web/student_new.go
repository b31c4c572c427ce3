package web

import (
	"net/http"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/views/pages"
)

// newStudent shows the empty form.
func (h *Handler) newStudent(w http.ResponseWriter, r *http.Request) {
	f := pages.StudentForm{KeyName: billing.DefaultKeyName, KeyNames: keyNameOptions(""), Errors: map[string]string{},
		Classes: h.knownClasses(r.Context())}
	h.page(w, r, http.StatusOK, pages.StudentNew(f), pages.StudentFormCard(f))
}
