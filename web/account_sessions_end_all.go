package web

import (
	"github.com/sekolah/portal/views/pages"
	"net/http"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/views/viewctx"
)

// signOutEverywhere ends every session of the person, this one included.
func (h *Handler) signOutEverywhere(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	p, _ := viewctx.CurrentPerson(ctx)
	if !h.confirmed(w, r, pages.ConfirmStep{
		Title: i18n.T(ctx, "sessions.end_all_own"), Question: i18n.T(ctx, "sessions.end_all_own_confirm"),
		Button: i18n.T(ctx, "sessions.end_all_own"), Danger: true, Back: "/account",
	}) {
		return
	}
	if _, err := h.auth.EndSessions(ctx, h.actor(r), p.ID); err != nil {
		h.serverError(w, r, err)
		return
	}
	h.signedOut(w, r, i18n.T(ctx, "sessions.signed_out_everywhere"))
}
