package web

import (
	"github.com/sekolah/portal/views/pages"
	"net/http"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/views/viewctx"
)

// endStaffSessions ends every session of the account (an admin's "end all" button).
func (h *Handler) endStaffSessions(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	u := staffFrom(r)
	if !h.confirmed(w, r, pages.ConfirmStep{
		Title: i18n.T(ctx, "sessions.end_all_staff"), Question: i18n.T(ctx, "sessions.end_all_staff_confirm", u.Username),
		Button: i18n.T(ctx, "sessions.end_all_staff"), Danger: true, Back: "/staff/" + u.ID,
	}) {
		return
	}
	if _, err := h.auth.EndSessions(ctx, h.actor(r), u.ID); err != nil {
		h.serverError(w, r, err)
		return
	}
	if p, _ := viewctx.CurrentPerson(ctx); p.ID == u.ID {
		h.signedOut(w, r, i18n.T(ctx, "sessions.signed_out_everywhere"))
		return
	}
	h.addFlash(w, r, "success", i18n.T(ctx, "sessions.ended_all_ok", u.Username))
	h.redirect(w, r, "/staff/"+u.ID)
}
