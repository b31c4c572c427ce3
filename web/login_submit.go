package web

import (
	"errors"
	"math"
	"net/http"
	"strings"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/views/pages"
)

// submitLogin checks the credentials, starts a session and sends the person on.
func (h *Handler) submitLogin(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	v := pages.LoginView{
		Username: strings.TrimSpace(r.PostFormValue("username")),
		Next:     safeNext(r.PostFormValue("next")),
	}
	password := r.PostFormValue("password")
	if v.Username == "" || password == "" {
		v.Error = i18n.T(ctx, "login.missing")
		h.render(w, r, http.StatusUnprocessableEntity, pages.Login(v))
		return
	}
	user, err := h.auth.SignInAttempt(ctx, auth.Attempt{Username: v.Username, Password: password, Addr: h.clientIP(r),
		Device: h.knownDevice(r)})
	var token string
	if err == nil {
		token, err = h.auth.StartSession(ctx, user, h.device(r))
	}
	if err != nil {
		status, msg := h.signInProblem(r, err)
		if status == http.StatusInternalServerError {
			h.serverError(w, r, err)
			return
		}
		v.Error = msg
		h.render(w, r, status, pages.Login(v))
		return
	}
	h.beginSession(w, r, token, user.Lang)
	h.rememberDevice(w, r, user.Username)
	h.redirect(w, r, v.Next)
}

// signInProblem is the status and message for a refused sign-in (or a refused current
// password); 500 for anything that is not the person's doing.
func (h *Handler) signInProblem(r *http.Request, err error) (int, string) {
	ctx := r.Context()
	var locked *auth.LockedError
	switch {
	case errors.As(err, &locked):
		minutes := int(math.Ceil(locked.Until.Sub(h.now()).Minutes()))
		key := "login.locked"
		switch {
		case locked.ByAddress:
			key = "login.locked_addr"
		case locked.ByUsername:
			key = "login.locked_user"
		}
		return http.StatusTooManyRequests, i18n.T(ctx, key, i18n.From(ctx).DateTime(locked.Until), max(minutes, 1))
	case errors.Is(err, auth.ErrDisabled):
		return http.StatusForbidden, i18n.T(ctx, "login.disabled")
	case errors.Is(err, auth.ErrBadCredentials):
		return http.StatusUnauthorized, i18n.T(ctx, "login.bad")
	}
	return http.StatusInternalServerError, ""
}

// beginSession puts a new session's token into a renewed cookie (new CSRF token), with
// the person's language when their account has one.
func (h *Handler) beginSession(w http.ResponseWriter, r *http.Request, token, lang string) {
	s := h.session(r)
	h.renewSession(s)
	s.Values[keyToken] = token
	if l, ok := i18n.ParseLang(lang); ok {
		s.Values[keyLang] = l.String()
	}
	h.saveSession(w, r, s)
}
