package web

import (
	"net/http"
	"strconv"

	"github.com/sekolah/portal/views/pages"
)

// showRegistrationSettings shows the public registration form's settings.
func (h *Handler) showRegistrationSettings(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	p, err := h.registration.PublicSettings(ctx)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	h.renderRegistrationSettings(w, r, http.StatusOK, pages.RegistrationSettingsView{Enabled: p.Enabled, TemplateID: p.TemplateID, Class: p.Class,
		HourlyCap: strconv.Itoa(p.HourlyCap), NumberPrefix: p.NumberPrefix})
}

func (h *Handler) renderRegistrationSettings(w http.ResponseWriter, r *http.Request, status int, v pages.RegistrationSettingsView) {
	opts, err := h.templateOptions(r.Context())
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	if len(opts) > 1 {
		v.Templates = opts
	}
	// From the configuration only: a Host header is whatever the request says.
	if h.cfg.PublicURL != "" {
		v.PublicURL = h.cfg.PublicURL + "/register"
	}
	h.render(w, r, status, pages.RegistrationSettings(v))
}
