package web

import (
	"errors"
	"net/http"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/views/pages"
)

// changeStaffRole sets the account's role, which signs its owner out everywhere; the last
// admin cannot be demoted.
func (h *Handler) changeStaffRole(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	u := staffFrom(r)
	role, err := auth.ParseRole(r.PostFormValue("role"))
	if err == nil {
		err = h.auth.SetRole(ctx, h.actor(r), u.ID, role)
	}
	var msg string
	switch {
	case err == nil:
		h.addFlash(w, r, "success", i18n.T(ctx, "staff.role_ok", u.Username, i18n.T(ctx, "role."+role.String())))
		h.redirect(w, r, "/staff/"+u.ID)
		return
	case errors.Is(err, auth.ErrUnknownRole):
		msg = i18n.T(ctx, "staff.err.role")
	case errors.Is(err, auth.ErrLastAdmin):
		msg = i18n.T(ctx, "staff.err.last_admin")
	default:
		h.serverError(w, r, err)
		return
	}
	h.renderStaffEdit(w, r, http.StatusUnprocessableEntity, u, func(v *pages.StaffEditView) { v.RoleError = msg })
}
