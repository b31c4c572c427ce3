package web

import (
	"errors"
	"net/http"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/views/pages"
	"github.com/sekolah/portal/views/viewctx"
)

// disableStaff stops an account from signing in and signs it out everywhere; its history
// stays.
func (h *Handler) disableStaff(w http.ResponseWriter, r *http.Request) {
	h.setStaffDisabled(w, r, true)
}

// enableStaff lets a disabled account sign in again.
func (h *Handler) enableStaff(w http.ResponseWriter, r *http.Request) {
	h.setStaffDisabled(w, r, false)
}

func (h *Handler) setStaffDisabled(w http.ResponseWriter, r *http.Request, disabled bool) {
	ctx := r.Context()
	u := staffFrom(r)
	problem := func(msg string) {
		h.renderStaffEdit(w, r, http.StatusUnprocessableEntity, u, func(v *pages.StaffEditView) { v.StatusError = msg })
	}
	if p, _ := viewctx.CurrentPerson(ctx); disabled && p.ID == u.ID {
		problem(i18n.T(ctx, "staff.err.self"))
		return
	}
	if disabled && !h.confirmed(w, r, pages.ConfirmStep{
		Title: i18n.T(ctx, "staff.disable"), Question: i18n.T(ctx, "staff.disable_confirm", u.Username),
		Button: i18n.T(ctx, "staff.disable"), Danger: true, Back: "/staff/" + u.ID,
	}) {
		return
	}
	err := h.auth.SetDisabled(ctx, h.actor(r), u.ID, disabled)
	switch {
	case err == nil:
		key := "staff.enabled_ok"
		if disabled {
			key = "staff.disabled_ok"
		}
		h.addFlash(w, r, "success", i18n.T(ctx, key, u.Username))
		h.redirect(w, r, "/staff/"+u.ID)
	case errors.Is(err, auth.ErrLastAdmin):
		problem(i18n.T(ctx, "staff.err.last_admin"))
	default:
		h.serverError(w, r, err)
	}
}
