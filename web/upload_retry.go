package web

import (
	"net/http"

	"github.com/sekolah/portal/internal/uploads"
)

// retryUpload sends again the rows a finished job could not send, or makes a job waiting
// for the payment service try again now.
func (h *Handler) retryUpload(w http.ResponseWriter, r *http.Request) {
	key := "uploads.retried"
	if j := uploadFrom(r); uploads.Running(j.State) {
		key = "uploads.hurried"
	}
	h.uploadStep(w, r, "upload.retry", key, h.uploads.Retry(r.Context(), uploadFrom(r).ID))
}
