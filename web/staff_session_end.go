package web

import (
	"errors"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/i18n"
)

// endStaffSession ends one session of the account (an admin's "end" button).
func (h *Handler) endStaffSession(w http.ResponseWriter, r *http.Request) {
	u := staffFrom(r)
	h.endSession(w, r, u.ID, chi.URLParam(r, "sid"), "/staff/"+u.ID)
}

// endSession ends session sid of userID and goes back to page, saying whether it had
// already ended; ending the session the request came with is signing out.
func (h *Handler) endSession(w http.ResponseWriter, r *http.Request, userID, sid, page string) {
	ctx := r.Context()
	err := h.auth.EndSession(ctx, h.actor(r), userID, sid)
	switch {
	case err == nil && sid == currentSessionID(ctx):
		h.signedOut(w, r, i18n.T(ctx, "login.signed_out"))
	case err == nil:
		h.addFlash(w, r, "success", i18n.T(ctx, "sessions.ended_ok"))
		h.redirect(w, r, page)
	case errors.Is(err, auth.ErrNoSession):
		h.addFlash(w, r, "info", i18n.T(ctx, "sessions.already_ended"))
		h.redirect(w, r, page)
	default:
		h.serverError(w, r, err)
	}
}

// signedOut renews the cookie of a request whose session has just ended and sends the
// person to the sign-in page with msg.
func (h *Handler) signedOut(w http.ResponseWriter, r *http.Request, msg string) {
	s := h.session(r)
	h.renewSession(s)
	s.AddFlash("success\x00" + msg)
	h.saveSession(w, r, s)
	h.redirect(w, r, "/login")
}
