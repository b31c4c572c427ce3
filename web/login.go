package web

import (
	"errors"
	"math"
	"net/http"
	"strings"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/views/pages"
	"github.com/sekolah/portal/views/viewctx"
)

// showLogin renders the sign-in form, or goes home when already signed in.
func (h *Handler) showLogin(w http.ResponseWriter, r *http.Request) {
	if _, ok := viewctx.CurrentPerson(r.Context()); ok {
		h.redirect(w, r, safeNext(r.URL.Query().Get("next")))
		return
	}
	h.render(w, r, http.StatusOK, pages.Login(pages.LoginView{Next: safeNext(r.URL.Query().Get("next"))}))
}

// submitLogin checks the credentials, renews the session and sends the person on.
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
	user, err := h.auth.SignIn(ctx, v.Username, password, h.clientIP(r))
	if err != nil {
		var locked *auth.LockedError
		status := http.StatusUnauthorized
		switch {
		case errors.As(err, &locked):
			status = http.StatusTooManyRequests
			minutes := int(math.Ceil(locked.Until.Sub(h.now()).Minutes()))
			key := "login.locked"
			if locked.ByAddress {
				key = "login.locked_addr"
			}
			v.Error = i18n.T(ctx, key, i18n.From(ctx).DateTime(locked.Until), max(minutes, 1))
		case errors.Is(err, auth.ErrDisabled):
			status = http.StatusForbidden
			v.Error = i18n.T(ctx, "login.disabled")
		case errors.Is(err, auth.ErrBadCredentials):
			v.Error = i18n.T(ctx, "login.bad")
		default:
			h.serverError(w, r, err)
			return
		}
		h.render(w, r, status, pages.Login(v))
		return
	}
	s := h.session(r)
	h.renewSession(s)
	s.Values[keyUserID] = user.ID
	if l, ok := i18n.ParseLang(user.Lang); ok {
		s.Values[keyLang] = l.String()
	}
	h.saveSession(w, r, s)
	h.redirect(w, r, v.Next)
}

// logout ends the session and records it.
func (h *Handler) logout(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if p, ok := viewctx.CurrentPerson(ctx); ok {
		h.audit(r, "auth.signout", p.Username, "ok", "")
	}
	s := h.session(r)
	h.renewSession(s)
	s.AddFlash("success\x00" + i18n.T(ctx, "login.signed_out"))
	h.saveSession(w, r, s)
	h.redirect(w, r, "/login")
}

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
		l := lang.String()
		if err := h.db.UpdateUser(r.Context(), p.ID, storeUserLang(l)); err != nil {
			h.serverError(w, r, err)
			return
		}
	}
	h.saveSession(w, r, s)
	h.redirect(w, r, safeNext(r.PostFormValue("next")))
}

func storeUserLang(lang string) store.UserChange { return store.UserChange{Lang: &lang} }
