package web

import (
	"errors"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/uploads"
)

// downloadErrorWorkbook sends the rows with problems, with what is wrong, to fix and
// upload again. The workbook is made once per language and then streamed from the
// database, never held whole in memory here.
func (h *Handler) downloadErrorWorkbook(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	j := uploadFrom(r)
	p := i18n.From(ctx)
	size, err := h.uploads.PrepareErrorWorkbook(ctx, j, p)
	switch {
	case errors.Is(err, uploads.ErrFileGone):
		h.renderError(w, r, http.StatusNotFound, i18n.T(ctx, "uploads.file_gone"))
		return
	case err != nil:
		h.serverError(w, r, err)
		return
	}
	name := strings.TrimSuffix(j.FileName, ".xlsx")
	if strings.HasSuffix(strings.ToLower(name), ".xlsx") {
		name = name[:len(name)-5]
	}
	name += "-" + strings.ToLower(i18n.T(ctx, "uploads.errbook.sheet")) + ".xlsx"
	hd := w.Header()
	hd.Set("Content-Type", xlsxType)
	hd.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name}))
	hd.Set("Cache-Control", "no-store")
	hd.Set("Content-Length", strconv.FormatInt(size, 10))
	w.WriteHeader(http.StatusOK)
	if err := h.uploads.CopyErrorWorkbook(ctx, j, p, w); err != nil {
		// The status is gone: the download ends short, and the browser says it failed.
		h.log.Error("send error workbook", "job", j.ID, "err", err)
	}
}
