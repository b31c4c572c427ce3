package web

import (
	"net/http"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/views/viewctx"
)

// switchLanguage stores the chosen language on the session and, when signed in, on the
// person's account so it follows them to other devices.
func (h *Handler) switchLanguage(w http.ResponseWriter, r *http.Request) {
	lang, ok := i18n.ParseLang(r.PostFormValue("lang"))
	if !ok {
		h.renderError(w, r, http.StatusBadRequest, "")
		return
	}
	s := h.session(r)
	s.Values[keyLang] = lang.String()
	if p, ok := viewctx.CurrentPerson(r.Context()); ok {
		if err := h.auth.SetLanguage(r.Context(), p.ID, lang); err != nil {
			h.serverError(w, r, err)
			return
		}
	}
	h.saveSession(w, r, s)
	h.redirect(w, r, safeNext(r.PostFormValue("next")))
}
