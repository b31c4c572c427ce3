package web

import (
	"net/http"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/views/pages"
)

// discardUpload drops an upload that was not committed, and its file.
func (h *Handler) discardUpload(w http.ResponseWriter, r *http.Request) {
	j := uploadFrom(r)
	ctx := r.Context()
	if !h.confirmed(w, r, pages.ConfirmStep{
		Title: i18n.T(ctx, "uploads.discard"), Question: i18n.T(ctx, "uploads.discard_confirm"),
		Button: i18n.T(ctx, "uploads.discard"), Danger: true, Back: uploadURL(j.ID),
	}) {
		return
	}
	err := h.uploads.Discard(r.Context(), j.ID, h.actor(r))
	if err == nil {
		h.addFlash(w, r, "success", i18n.T(r.Context(), "uploads.discarded", j.FileName))
		h.redirect(w, r, "/uploads")
		return
	}
	h.uploadStep(w, r, "uploads.discarded", err, j.FileName)
}
