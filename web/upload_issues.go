package web

import (
	"net/http"

	"github.com/sekolah/portal/views/pages"
)

// uploadIssues pages through the problems found in the sheet.
func (h *Handler) uploadIssues(w http.ResponseWriter, r *http.Request) {
	v, err := h.uploadView(r.Context(), uploadFrom(r), offsetParam(r, uploadIssuesPage))
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	h.page(w, r, http.StatusOK, pages.Upload(v), pages.UploadIssues(v))
}
