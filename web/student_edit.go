package web

import (
	"net/http"

	"github.com/sekolah/portal/views/pages"
)

// editStudent shows the student's details in the form.
func (h *Handler) editStudent(w http.ResponseWriter, r *http.Request) {
	s := studentFrom(r)
	f := pages.StudentForm{
		Edit: true, NIS: s.NIS, Name: s.Name, KeyName: s.KeyName, Phone: s.Phone, Email: s.Email,
		Description: s.Description, KeyNames: keyNameOptions(s.KeyName), Errors: map[string]string{},
		Classes: h.knownClasses(r.Context()),
	}
	h.page(w, r, http.StatusOK, pages.StudentEdit(f), pages.StudentFormCard(f))
}
