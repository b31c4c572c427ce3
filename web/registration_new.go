package web

import (
	"net/http"

	"github.com/sekolah/portal/views/pages"
)

// newRegistration shows the wizard's first step.
func (h *Handler) newRegistration(w http.ResponseWriter, r *http.Request) {
	v := pages.RegistrationWizardView{Step: 1, Form: pages.RegistrationForm{TemplateID: r.URL.Query().Get("template")}}
	h.showWizard(w, r, http.StatusOK, v)
}
