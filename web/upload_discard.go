package web

import (
	"net/http"

	"github.com/sekolah/portal/internal/i18n"
)

// discardUpload drops an upload that was not committed, and its file.
func (h *Handler) discardUpload(w http.ResponseWriter, r *http.Request) {
	j := uploadFrom(r)
	err := h.uploads.Discard(r.Context(), j.ID, h.actor(r))
	if err == nil {
		h.addFlash(w, r, "success", i18n.T(r.Context(), "uploads.discarded", j.FileName))
		h.redirect(w, r, "/uploads")
		return
	}
	h.uploadStep(w, r, "uploads.discarded", err, j.FileName)
}
