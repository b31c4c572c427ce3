package web

import (
	"bytes"
	"errors"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/uploads"
	"github.com/sekolah/portal/views/pages"
)

// xlsxType is the media type of .xlsx files.
const xlsxType = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

func offsetParam(r *http.Request) int {
	n, _ := strconv.Atoi(r.URL.Query().Get("offset"))
	return max(n, 0)
}

// showUpload is an upload's page: the check running, the preview, or the job.
func (h *Handler) showUpload(w http.ResponseWriter, r *http.Request) {
	v, err := h.uploadView(r.Context(), uploadFrom(r), offsetParam(r))
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, pages.Upload(v))
}

// uploadStatus is what the page polls while the upload is checked or sent.
func (h *Handler) uploadStatus(w http.ResponseWriter, r *http.Request) {
	v, err := h.uploadView(r.Context(), uploadFrom(r), 0)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	h.page(w, r, http.StatusOK, pages.Upload(v), pages.UploadStatus(v))
}

// uploadIssues pages through the problems found in the sheet.
func (h *Handler) uploadIssues(w http.ResponseWriter, r *http.Request) {
	v, err := h.uploadView(r.Context(), uploadFrom(r), offsetParam(r))
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	h.page(w, r, http.StatusOK, pages.Upload(v), pages.UploadIssues(v))
}

// sendXLSX answers with a workbook to download under name.
func sendXLSX(w http.ResponseWriter, name string, body []byte) {
	hd := w.Header()
	hd.Set("Content-Type", xlsxType)
	hd.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name}))
	hd.Set("Cache-Control", "no-store")
	hd.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

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
