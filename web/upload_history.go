package web

import (
	"net/http"
	"strconv"

	"github.com/sekolah/portal/views/components"
	"github.com/sekolah/portal/views/pages"
)

const uploadHistoryPage = 50

// listUploads is the upload history: who, when, which file (name and SHA-256), what it
// held and how its job ended.
func (h *Handler) listUploads(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	offset := offsetParam(r, uploadHistoryPage)
	jobs, total, err := h.uploads.History(ctx, offset, uploadHistoryPage)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	v := pages.UploadHistoryView{}
	name := h.staffNames(ctx)
	for _, j := range jobs {
		v.Rows = append(v.Rows, h.uploadListRow(ctx, j, name))
	}
	v.Pager = components.Pager{Offset: offset, Limit: uploadHistoryPage, Shown: len(v.Rows), Total: total,
		Target: "#upload-history", URL: func(off int) string {
			if off == 0 {
				return "/uploads/history"
			}
			return "/uploads/history?offset=" + strconv.Itoa(off)
		}}
	h.page(w, r, http.StatusOK, pages.UploadHistory(v), pages.UploadHistoryResults(v))
}
