package web

import (
	"bytes"
	"errors"
	"net/http"
	"strings"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/uploads"
)

// downloadErrorWorkbook sends the rows with problems, with what is wrong, to fix and
// upload again.
func (h *Handler) downloadErrorWorkbook(w http.ResponseWriter, r *http.Request) {
	j := uploadFrom(r)
	var buf bytes.Buffer
	err := h.uploads.ErrorWorkbook(r.Context(), j, &buf, i18n.From(r.Context()))
	switch {
	case errors.Is(err, uploads.ErrFileGone):
		h.renderError(w, r, http.StatusNotFound, i18n.T(r.Context(), "uploads.file_gone"))
		return
	case err != nil:
		h.serverError(w, r, err)
		return
	}
	name := strings.TrimSuffix(j.FileName, ".xlsx")
	if strings.HasSuffix(strings.ToLower(name), ".xlsx") {
		name = name[:len(name)-5]
	}
	sendXLSX(w, name+"-"+strings.ToLower(i18n.T(r.Context(), "uploads.errbook.sheet"))+".xlsx", buf.Bytes())
}
