package web

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/uploads"
)

// uploadStep answers an action on an upload: back to its page with a message, or with a
// plain note when the upload has moved on (committed twice, discarded meanwhile).
func (h *Handler) uploadStep(w http.ResponseWriter, r *http.Request, action, okKey string, err error, args ...any) {
	ctx := r.Context()
	j := uploadFrom(r)
	switch {
	case err == nil:
		h.audit(r, action, j.ID, "ok", fmt.Sprintf("%s %q", j.Kind, j.FileName))
		h.addFlash(w, r, "success", i18n.T(ctx, okKey, args...))
	case errors.Is(err, uploads.ErrState):
		h.addFlash(w, r, "warning", i18n.T(ctx, "uploads.not_possible"))
	case errors.Is(err, uploads.ErrFileGone):
		h.addFlash(w, r, "error", i18n.T(ctx, "uploads.file_gone"))
	default:
		h.serverError(w, r, err)
		return
	}
	h.redirect(w, r, uploadURL(j.ID))
}

// analyseUpload checks a held upload (the person confirmed despite the earlier upload of
// the same file) or checks again one the service did not answer for.
func (h *Handler) analyseUpload(w http.ResponseWriter, r *http.Request) {
	h.uploadStep(w, r, "upload.analyse", "uploads.reanalysing", h.uploads.Analyse(r.Context(), uploadFrom(r).ID))
}

// commitUpload starts the job that sends the new rows.
func (h *Handler) commitUpload(w http.ResponseWriter, r *http.Request) {
	h.uploadStep(w, r, "upload.commit", "uploads.committed", h.uploads.Commit(r.Context(), uploadFrom(r).ID, h.actor(r)))
}

// retryUpload sends again the rows a finished job could not send.
func (h *Handler) retryUpload(w http.ResponseWriter, r *http.Request) {
	h.uploadStep(w, r, "upload.retry", "uploads.retried", h.uploads.Retry(r.Context(), uploadFrom(r).ID))
}

// discardUpload drops an upload that was not committed, and its file.
func (h *Handler) discardUpload(w http.ResponseWriter, r *http.Request) {
	j := uploadFrom(r)
	err := h.uploads.Discard(r.Context(), j.ID)
	if err == nil {
		h.audit(r, "upload.discard", j.ID, "ok", fmt.Sprintf("%s %q", j.Kind, j.FileName))
		h.addFlash(w, r, "success", i18n.T(r.Context(), "uploads.discarded", j.FileName))
		h.redirect(w, r, "/uploads")
		return
	}
	h.uploadStep(w, r, "upload.discard", "uploads.discarded", err, j.FileName)
}
