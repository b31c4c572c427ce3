package web

import (
	"errors"
	"net/http"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/views/pages"
	"github.com/sekolah/portal/views/viewctx"
)

// changeOwnPassword replaces the person's password after they prove the current one.
// Every other device is signed out; this one carries on in a new session.
func (h *Handler) changeOwnPassword(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	p, _ := viewctx.CurrentPerson(ctx)
	current, password := r.PostFormValue("current_password"), r.PostFormValue("new_password")
	f := pages.PasswordChangeForm{Errors: map[string]string{}}
	if current == "" {
		f.Errors["current_password"] = i18n.T(ctx, "form.required")
	}
	if err := auth.ValidateNewPassword(p.Username, password); err != nil {
		f.Errors["new_password"] = passwordMessage(ctx, err)
	} else if r.PostFormValue("repeat_password") != password {
		f.Errors["repeat_password"] = i18n.T(ctx, "account.err.repeat")
	}
	if len(f.Errors) > 0 {
		h.renderAccount(w, r, http.StatusUnprocessableEntity, f)
		return
	}
	token, err := h.auth.ChangePassword(ctx, h.actor(r), current, password, h.device(r))
	var locked *auth.LockedError
	switch {
	case err == nil:
		h.beginSession(w, r, token, "")
		h.addFlash(w, r, "success", i18n.T(ctx, "account.password_ok"))
		h.redirect(w, r, "/account")
		return
	case errors.Is(err, auth.ErrBadCredentials):
		f.Errors["current_password"] = i18n.T(ctx, "account.err.current")
		h.renderAccount(w, r, http.StatusUnprocessableEntity, f)
	case errors.As(err, &locked):
		status, msg := h.signInProblem(r, err)
		f.General = msg
		h.renderAccount(w, r, status, f)
	case isPasswordRule(err):
		f.Errors["new_password"] = passwordMessage(ctx, err)
		h.renderAccount(w, r, http.StatusUnprocessableEntity, f)
	default:
		h.serverError(w, r, err)
	}
}
