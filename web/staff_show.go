package web

import "net/http"

// showStaff shows one account's role, access, password reset and sessions.
func (h *Handler) showStaff(w http.ResponseWriter, r *http.Request) {
	h.renderStaffEdit(w, r, http.StatusOK, staffFrom(r), nil)
}
