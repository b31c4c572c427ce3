package web

import (
	"net/http"

	"github.com/sekolah/portal/internal/i18n"
)

// logout ends this session (other devices stay signed in: "sign out everywhere" on the
// account page ends them too) and renews the cookie.
func (h *Handler) logout(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	s := h.session(r)
	if token, _ := s.Values[keyToken].(string); token != "" {
		if err := h.auth.SignOut(ctx, h.actor(r), token); err != nil {
			h.serverError(w, r, err)
			return
		}
	}
	h.renewSession(s)
	s.AddFlash("success\x00" + i18n.T(ctx, "login.signed_out"))
	h.saveSession(w, r, s)
	h.redirect(w, r, "/login")
}
