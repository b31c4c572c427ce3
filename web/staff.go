package web

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/views/components"
	"github.com/sekolah/portal/views/pages"
	"github.com/sekolah/portal/views/viewctx"
)

// staffCtx loads the {id} account once and answers 404 early.
func (h *Handler) staffCtx(next http.Handler) http.Handler { return recordCtx(h, h.db.UserByID, next) }

func staffFrom(r *http.Request) store.User { return recordFrom[store.User](r) }

func (h *Handler) actor(r *http.Request) auth.Actor {
	p, _ := viewctx.CurrentPerson(r.Context())
	return auth.Actor{ID: p.ID, Username: p.Username, Role: auth.Role(p.Role), IP: h.clientIP(r)}
}

func roleOptions(ctx context.Context) []components.Option {
	var opts []components.Option
	for _, role := range auth.Roles() {
		opts = append(opts, components.Option{Value: role.String(), Label: i18n.T(ctx, "role."+role.String())})
	}
	return opts
}

func staffRow(u store.User) pages.StaffRow {
	return pages.StaffRow{ID: u.ID, Username: u.Username, DisplayName: u.DisplayName, Role: u.Role, Disabled: u.Disabled, CreatedAt: u.CreatedAt}
}

// passwordMessage says which password rule failed, in the person's language.
func passwordMessage(ctx context.Context, err error) string {
	switch {
	case errors.Is(err, auth.ErrPasswordTooShort):
		return i18n.T(ctx, "password.too_short")
	case errors.Is(err, auth.ErrPasswordIsUsername):
		return i18n.T(ctx, "password.username")
	case errors.Is(err, auth.ErrPasswordTooLong):
		return i18n.T(ctx, "form.too_long")
	default:
		return i18n.T(ctx, "password.weak")
	}
}

func (h *Handler) staffListView(ctx context.Context, form pages.StaffForm) (pages.StaffListView, error) {
	users, err := h.db.ListUsers(ctx)
	if err != nil {
		return pages.StaffListView{}, err
	}
	v := pages.StaffListView{Form: form, Roles: roleOptions(ctx)}
	for _, u := range users {
		v.Rows = append(v.Rows, staffRow(u))
	}
	return v, nil
}

// listStaff shows every account and the form to add one.
func (h *Handler) listStaff(w http.ResponseWriter, r *http.Request) {
	v, err := h.staffListView(r.Context(), pages.StaffForm{Role: auth.Finance.String(), Password: auth.GeneratePassword()})
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, pages.StaffList(v))
}

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

func (h *Handler) staffEditView(r *http.Request, u store.User) pages.StaffEditView {
	p, _ := viewctx.CurrentPerson(r.Context())
	return pages.StaffEditView{Row: staffRow(u), Roles: roleOptions(r.Context()), Password: auth.GeneratePassword(), Self: p.ID == u.ID}
}

// showStaff shows one account's role, access and password reset.
func (h *Handler) showStaff(w http.ResponseWriter, r *http.Request) {
	h.render(w, r, http.StatusOK, pages.StaffEdit(h.staffEditView(r, staffFrom(r))))
}

// changeStaffRole sets the account's role; the last admin cannot be demoted.
func (h *Handler) changeStaffRole(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	u := staffFrom(r)
	role, err := auth.ParseRole(r.PostFormValue("role"))
	if err == nil {
		err = h.auth.SetRole(ctx, h.actor(r), u.ID, role)
	}
	if err == nil {
		h.addFlash(w, r, "success", i18n.T(ctx, "staff.role_ok", u.Username, i18n.T(ctx, "role."+role.String())))
		h.redirect(w, r, "/staff/"+u.ID)
		return
	}
	v := h.staffEditView(r, u)
	switch {
	case errors.Is(err, auth.ErrUnknownRole):
		v.RoleError = i18n.T(ctx, "staff.err.role")
	case errors.Is(err, auth.ErrLastAdmin):
		v.RoleError = i18n.T(ctx, "staff.err.last_admin")
	default:
		h.serverError(w, r, err)
		return
	}
	h.render(w, r, http.StatusUnprocessableEntity, pages.StaffEdit(v))
}

func (h *Handler) setStaffDisabled(w http.ResponseWriter, r *http.Request, disabled bool) {
	ctx := r.Context()
	u := staffFrom(r)
	v := h.staffEditView(r, u)
	if disabled && v.Self {
		v.StatusError = i18n.T(ctx, "staff.err.self")
		h.render(w, r, http.StatusUnprocessableEntity, pages.StaffEdit(v))
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
		v.StatusError = i18n.T(ctx, "staff.err.last_admin")
		h.render(w, r, http.StatusUnprocessableEntity, pages.StaffEdit(v))
	default:
		h.serverError(w, r, err)
	}
}

// disableStaff stops an account from signing in; its history stays.
func (h *Handler) disableStaff(w http.ResponseWriter, r *http.Request) {
	h.setStaffDisabled(w, r, true)
}

// enableStaff lets a disabled account sign in again.
func (h *Handler) enableStaff(w http.ResponseWriter, r *http.Request) {
	h.setStaffDisabled(w, r, false)
}

// resetStaffPassword sets a new password that the admin hands over in person.
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
	v := h.staffEditView(r, u)
	v.Password, v.PasswordError = password, passwordMessage(ctx, err)
	h.render(w, r, http.StatusUnprocessableEntity, pages.StaffEdit(v))
}

func isPasswordRule(err error) bool {
	return errors.Is(err, auth.ErrPasswordTooShort) || errors.Is(err, auth.ErrPasswordTooLong) ||
		errors.Is(err, auth.ErrPasswordRepeated) || errors.Is(err, auth.ErrPasswordIsUsername)
}
