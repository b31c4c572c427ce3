package web

import (
	"net/http"

	"github.com/sekolah/portal/views/pages"
)

// showPublicRegistration is the public registration form, when an admin has switched it on.
func (h *Handler) showPublicRegistration(w http.ResponseWriter, r *http.Request) {
	_, rev, unusable, ok := h.publicForm(w, r)
	if !ok {
		return
	}
	status := http.StatusOK
	if unusable {
		status = http.StatusServiceUnavailable
	}
	v, err := h.publicView(r, rev, unusable)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	h.render(w, r, status, pages.PublicRegister(v))
}
