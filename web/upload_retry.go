package web

import "net/http"

// retryUpload sends again the rows a finished job could not send.
func (h *Handler) retryUpload(w http.ResponseWriter, r *http.Request) {
	h.uploadStep(w, r, "upload.retry", "uploads.retried", h.uploads.Retry(r.Context(), uploadFrom(r).ID))
}
