package web

import (
	"github.com/sekolah/portal/views/pages"
	"net/http"

	"github.com/sekolah/portal/internal/i18n"
)

// deleteSchoolLogo removes the logo; documents go back to the portal's own.
func (h *Handler) deleteSchoolLogo(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if !h.confirmed(w, r, pages.ConfirmStep{
		Title: i18n.T(ctx, "school.logo_remove"), Question: i18n.T(ctx, "school.logo_remove_ask"),
		Button: i18n.T(ctx, "school.logo_remove"), Danger: true, Back: "/settings/school",
	}) {
		return
	}
	if err := h.school.RemoveLogo(ctx, h.actor(r)); err != nil {
		h.serverError(w, r, err)
		return
	}
	h.addFlash(w, r, "success", i18n.T(ctx, "school.logo_removed"))
	h.redirect(w, r, "/settings/school")
}
