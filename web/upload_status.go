package web

import (
	"net/http"

	"github.com/sekolah/portal/views/pages"
)

// uploadStatus is what the page polls while the upload is checked or sent.
func (h *Handler) uploadStatus(w http.ResponseWriter, r *http.Request) {
	v, err := h.uploadView(r.Context(), uploadFrom(r), 0)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	h.page(w, r, http.StatusOK, pages.Upload(v), pages.UploadStatus(v))
}
