package web

import (
	"net/http"

	"github.com/sekolah/portal/views/pages"
)

// showAccount shows the person's own sessions and the form to change their password.
func (h *Handler) showAccount(w http.ResponseWriter, r *http.Request) {
	h.renderAccount(w, r, http.StatusOK, pages.PasswordChangeForm{})
}
