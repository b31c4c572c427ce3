package web

import (
	"net/http"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/views/pages"
	"github.com/sekolah/portal/views/viewctx"
)

// renderAccount shows the signed-in person's own page with status and the password form
// as given (its errors, if any).
func (h *Handler) renderAccount(w http.ResponseWriter, r *http.Request, status int, form pages.PasswordChangeForm) {
	ctx := r.Context()
	p, _ := viewctx.CurrentPerson(ctx)
	list, err := h.auth.Sessions(ctx, h.actor(r), p.ID)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	h.render(w, r, status, pages.Account(pages.AccountView{
		DisplayName: p.DisplayName, Username: p.Username, Role: i18n.T(ctx, "role."+string(p.Role)),
		Sessions: pages.SessionsView{
			Title: i18n.T(ctx, "sessions.title_own"), Intro: i18n.T(ctx, "sessions.intro_own"),
			Rows:      h.sessionRows(ctx, list, func(id string) string { return "/account/sessions/" + id + "/end" }),
			EndAllURL: "/account/sessions/end-all", EndAllLabel: i18n.T(ctx, "sessions.end_all_own"),
		},
		Password: form,
	}))
}
