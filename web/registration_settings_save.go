package web

import (
	"net/http"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/internal/registration"
	"github.com/sekolah/portal/views/pages"
)

// saveRegistrationSettings switches the public form on or off and sets its template.
func (h *Handler) saveRegistrationSettings(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	p := registration.Public{Enabled: r.PostFormValue("enabled") == "1", TemplateID: r.PostFormValue("template"), Class: r.PostFormValue("class")}
	err := h.registration.SetPublicSettings(ctx, h.actor(r), p)
	if err == nil {
		h.addFlash(w, r, "success", i18n.T(ctx, "registration.settings.saved"))
		h.redirect(w, r, "/settings/registration")
		return
	}
	ps, ok := problem.As(err)
	if !ok {
		h.serverError(w, r, err)
		return
	}
	h.renderRegistrationSettings(w, r, http.StatusUnprocessableEntity, pages.RegistrationSettingsView{
		Enabled: p.Enabled, TemplateID: p.TemplateID, Class: p.Class, Errors: problemMessages(ctx, ps),
	})
}
