package web

import (
	"net/http"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/internal/registration"
	"github.com/sekolah/portal/views/pages"
)

// saveRegistrationSettings switches the public form on or off, sets its template, the new
// students' class and the hourly cap of registrations it sends on its own.
func (h *Handler) saveRegistrationSettings(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	in := registration.PublicInput{Enabled: r.PostFormValue("enabled") == "1", TemplateID: r.PostFormValue("template"),
		Class: r.PostFormValue("class"), HourlyCap: r.PostFormValue("hourly_cap"),
		NumberPrefix: r.PostFormValue("number_prefix")}
	err := h.registration.SetPublicSettings(ctx, h.actor(r), in)
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
		Enabled: in.Enabled, TemplateID: in.TemplateID, Class: in.Class, HourlyCap: in.HourlyCap, NumberPrefix: in.NumberPrefix, Errors: problemMessages(ctx, ps),
	})
}
