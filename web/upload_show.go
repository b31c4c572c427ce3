package web

import (
	"net/http"

	"github.com/sekolah/portal/views/pages"
)

// showUpload is an upload's page: the check running, the preview, or the job.
func (h *Handler) showUpload(w http.ResponseWriter, r *http.Request) {
	v, err := h.uploadView(r.Context(), uploadFrom(r), offsetParam(r, uploadIssuesPage))
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, pages.Upload(v))
}
