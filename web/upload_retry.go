package web

import (
	"net/http"

	"github.com/sekolah/portal/internal/uploads"
)

// retryUpload sends again the rows a finished job could not send, or makes a job waiting
// for the payment service try again now.
func (h *Handler) retryUpload(w http.ResponseWriter, r *http.Request) {
	j := uploadFrom(r)
	key := "uploads.retried"
	if uploads.Hurried(j) {
		key = "uploads.hurried"
	}
	h.uploadStep(w, r, key, h.uploads.Retry(r.Context(), j.ID, h.actor(r)))
}
