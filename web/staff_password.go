package web

import (
	"net/http"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/views/pages"
)

// resetStaffPassword sets a new password that the admin hands over in person; its owner
// is signed out everywhere.
func (h *Handler) resetStaffPassword(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	u := staffFrom(r)
	password := r.PostFormValue("password")
	err := auth.ValidateNewPassword(u.Username, password)
	if err == nil {
		err = h.auth.SetPassword(ctx, h.actor(r), u.ID, password)
		if err == nil {
			h.addFlash(w, r, "success", i18n.T(ctx, "staff.password_ok", u.Username))
			h.redirect(w, r, "/staff/"+u.ID)
			return
		}
		if !isPasswordRule(err) {
			h.serverError(w, r, err)
			return
		}
	}
	h.renderStaffEdit(w, r, http.StatusUnprocessableEntity, u, func(v *pages.StaffEditView) {
		v.Password, v.PasswordError = password, passwordMessage(ctx, err)
	})
}
