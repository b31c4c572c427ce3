package web

import (
	"context"
	"errors"
	"net/http"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/views/components"
	"github.com/sekolah/portal/views/pages"
	"github.com/sekolah/portal/views/viewctx"
)

// staffCtx loads the {id} account once and answers 404 early.
func (h *Handler) staffCtx(next http.Handler) http.Handler { return recordCtx(h, h.auth.User, next) }

func staffFrom(r *http.Request) auth.User { return recordFrom[auth.User](r) }

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

func staffRow(u auth.User) pages.StaffRow {
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

func isPasswordRule(err error) bool {
	return errors.Is(err, auth.ErrPasswordTooShort) || errors.Is(err, auth.ErrPasswordTooLong) ||
		errors.Is(err, auth.ErrPasswordRepeated) || errors.Is(err, auth.ErrPasswordIsUsername)
}

func (h *Handler) staffListView(ctx context.Context, form pages.StaffForm) (pages.StaffListView, error) {
	users, err := h.auth.Users(ctx)
	if err != nil {
		return pages.StaffListView{}, err
	}
	v := pages.StaffListView{Form: form, Roles: roleOptions(ctx)}
	for _, u := range users {
		v.Rows = append(v.Rows, staffRow(u))
	}
	return v, nil
}

// renderStaffEdit shows account u's page with status; adjust fills in what the action
// has to say (a field's error, what was typed).
func (h *Handler) renderStaffEdit(w http.ResponseWriter, r *http.Request, status int, u auth.User, adjust func(*pages.StaffEditView)) {
	ctx := r.Context()
	p, _ := viewctx.CurrentPerson(ctx)
	list, err := h.auth.Sessions(ctx, h.actor(r), u.ID)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	v := pages.StaffEditView{
		Row: staffRow(u), Roles: roleOptions(ctx), Password: auth.GeneratePassword(), Self: p.ID == u.ID,
		Sessions: pages.SessionsView{
			Title: i18n.T(ctx, "sessions.title_staff"), Intro: i18n.T(ctx, "sessions.intro_staff", u.Username),
			Rows:      h.sessionRows(ctx, list, func(id string) string { return "/staff/" + u.ID + "/sessions/" + id + "/end" }),
			EndAllURL: "/staff/" + u.ID + "/sessions/end-all", EndAllLabel: i18n.T(ctx, "sessions.end_all_staff"),
		},
	}
	if adjust != nil {
		adjust(&v)
	}
	h.render(w, r, status, pages.StaffEdit(v))
}
