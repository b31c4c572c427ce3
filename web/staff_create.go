package web

import (
	"errors"
	"net/http"
	"strings"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/views/pages"
)

// createStaff adds an account; on a mistake the form comes back with what was typed.
func (h *Handler) createStaff(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	f := pages.StaffForm{
		Username:    strings.TrimSpace(r.PostFormValue("username")),
		DisplayName: strings.TrimSpace(r.PostFormValue("display_name")),
		Role:        r.PostFormValue("role"),
		Password:    r.PostFormValue("password"),
		Errors:      map[string]string{},
	}
	role, roleErr := auth.ParseRole(f.Role)
	if _, err := auth.ValidateUsername(f.Username); err != nil {
		f.Errors["username"] = i18n.T(ctx, "staff.err.username")
	}
	if f.DisplayName == "" {
		f.Errors["display_name"] = i18n.T(ctx, "form.required")
	} else if len([]rune(f.DisplayName)) > 100 {
		f.Errors["display_name"] = i18n.T(ctx, "form.too_long")
	}
	if roleErr != nil {
		f.Errors["role"] = i18n.T(ctx, "staff.err.role")
	}
	if err := auth.ValidateNewPassword(f.Username, f.Password); err != nil {
		f.Errors["password"] = passwordMessage(ctx, err)
	}
	if len(f.Errors) == 0 {
		u, err := h.auth.CreateUser(ctx, h.actor(r), f.Username, f.DisplayName, role, f.Password)
		switch {
		case err == nil:
			h.addFlash(w, r, "success", i18n.T(ctx, "staff.created_ok", u.Username))
			h.redirect(w, r, "/staff")
			return
		case errors.Is(err, auth.ErrUsernameTaken):
			f.Errors["username"] = i18n.T(ctx, "staff.err.taken")
		default:
			h.serverError(w, r, err)
			return
		}
	}
	v, err := h.staffListView(ctx, f)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	h.page(w, r, http.StatusUnprocessableEntity, pages.StaffList(v), pages.StaffCreateForm(f, v.Roles))
}
