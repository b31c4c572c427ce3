package web

import (
	"net/http"

	"github.com/sekolah/portal/internal/i18n"
)

// deleteSchoolLogo removes the logo; documents go back to the portal's own.
func (h *Handler) deleteSchoolLogo(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if err := h.school.RemoveLogo(ctx, h.actor(r)); err != nil {
		h.serverError(w, r, err)
		return
	}
	h.addFlash(w, r, "success", i18n.T(ctx, "school.logo_removed"))
	h.redirect(w, r, "/settings/school")
}
