package web

import (
	"bytes"
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/sekolah/portal/internal/uploads"
)

// downloadTemplate sends the template of a kind of sheet.
func (h *Handler) downloadTemplate(w http.ResponseWriter, r *http.Request) {
	kind, ok := uploads.ParseKind(chi.URLParam(r, "kind"))
	if !ok {
		h.notFound(w, r)
		return
	}
	var buf bytes.Buffer
	if err := h.uploads.Template(&buf, kind); err != nil {
		h.serverError(w, r, err)
		return
	}
	name := "templat-tagihan.xlsx"
	if kind == uploads.Students {
		name = "templat-siswa.xlsx"
	}
	sendXLSX(w, name, buf.Bytes())
}
