package web

import "net/http"

// commitUpload starts the job that sends the new rows.
func (h *Handler) commitUpload(w http.ResponseWriter, r *http.Request) {
	h.uploadStep(w, r, "uploads.committed", h.uploads.Commit(r.Context(), uploadFrom(r).ID, h.actor(r)))
}
