package web

import (
	"errors"
	"mime"
	"net/http"
	"strconv"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/uploads"
	"github.com/sekolah/portal/views/pages"
)

// uploadFormOverhead is what an upload request may carry beside the file itself: the
// other fields and the multipart framing.
const uploadFormOverhead = 64 << 10

// uploadMemory is how much of a multipart body is kept in memory; the rest of the file
// goes to a temporary file until the runner has stored it in the database.
const uploadMemory = 256 << 10

// refuseUpload shows the form again with what is wrong with the upload.
func (h *Handler) refuseUpload(w http.ResponseWriter, r *http.Request, status int, form pages.UploadForm) {
	v, err := h.uploadNewView(r.Context(), form)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	h.page(w, r, status, pages.UploadNew(v), pages.UploadFormCard(v))
}

// parseUpload reads the multipart upload form before the CSRF check does, with little
// memory (a large file goes to a temporary file), and answers a body over the upload
// limit with the form and a plain message instead of a broken page. It runs after the
// permission check: nobody else gets a body read.
func (h *Handler) parseUpload(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if r.Method != http.MethodPost || mt != "multipart/form-data" {
			next.ServeHTTP(w, r)
			return
		}
		err := r.ParseMultipartForm(uploadMemory)
		if err == nil {
			next.ServeHTTP(w, r)
			return
		}
		ctx := r.Context()
		var tooBig *http.MaxBytesError
		if !errors.As(err, &tooBig) {
			h.log.Warn("read upload", "err", err)
			h.renderError(w, r, http.StatusBadRequest, i18n.T(ctx, "uploads.err.upload_failed"))
			return
		}
		form := pages.UploadForm{Errors: map[string]string{"file": i18n.T(ctx, "uploads.err.too_big", strconv.FormatInt(h.cfg.UploadMaxBytes>>20, 10))}}
		h.refuseUpload(w, r, http.StatusRequestEntityTooLarge, form)
	})
}

// receiveUpload stores the file and sends the person to its page, where the check runs.
func (h *Handler) receiveUpload(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	form := pages.UploadForm{Kind: r.FormValue("kind"), Errors: map[string]string{}}
	kind, ok := uploads.ParseKind(form.Kind)
	if !ok {
		form.Errors["kind"] = i18n.T(ctx, "uploads.err.kind")
	}
	file, header, err := r.FormFile("file")
	if err != nil || header.Size == 0 && header.Filename == "" {
		form.Errors["file"] = i18n.T(ctx, "uploads.err.no_file")
	}
	if len(form.Errors) > 0 {
		if file != nil {
			file.Close()
		}
		h.refuseUpload(w, r, http.StatusUnprocessableEntity, form)
		return
	}
	defer file.Close()
	rec, err := h.uploads.Receive(ctx, h.actor(r), kind, header.Filename, file)
	var fe *uploads.FileError
	switch {
	case errors.Is(err, uploads.ErrTooBig):
		form.Errors["file"] = i18n.T(ctx, "uploads.err.too_big", strconv.FormatInt(h.cfg.UploadMaxBytes>>20, 10))
	case errors.As(err, &fe):
		form.Errors["file"] = uploads.FileMessage(i18n.From(ctx), fe.Code, fe.Args)
	case err != nil:
		h.serverError(w, r, err)
		return
	}
	if len(form.Errors) > 0 {
		h.refuseUpload(w, r, http.StatusUnprocessableEntity, form)
		return
	}
	j := rec.Job
	if len(rec.Earlier) > 0 {
		h.addFlash(w, r, "warning", i18n.T(ctx, "uploads.received_held", j.FileName))
	} else {
		h.addFlash(w, r, "success", i18n.T(ctx, "uploads.received", j.FileName))
	}
	h.redirect(w, r, uploadURL(j.ID))
}
