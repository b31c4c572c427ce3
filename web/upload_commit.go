package web

import (
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/uploads"
	"github.com/sekolah/portal/views/pages"
)

// commitUpload starts the job that sends the new rows, once the person has acknowledged
// each kind of warning the preview lists (the form's "ack" values); without them it shows
// the preview again (422) saying what to acknowledge, the ticked boxes kept.
func (h *Handler) commitUpload(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	j := uploadFrom(r)
	acked := r.Form["ack"]
	err := h.uploads.Commit(ctx, j.ID, h.actor(r), acked...)
	var need *uploads.NeedsAck
	if !errors.As(err, &need) {
		h.uploadStep(w, r, "uploads.committed", err)
		return
	}
	v, verr := h.uploadView(ctx, j, 0)
	if verr != nil {
		h.serverError(w, r, verr)
		return
	}
	var words []string
	for i := range v.Acks {
		a := &v.Acks[i]
		a.Checked = slices.Contains(acked, a.Code)
		if a.Missing = slices.Contains(need.Codes, a.Code); a.Missing {
			words = append(words, i18n.T(ctx, "uploads.ack_short."+a.Code))
		}
	}
	v.AckError = i18n.T(ctx, "uploads.ack.missing", strings.Join(words, ", "))
	h.page(w, r, http.StatusUnprocessableEntity, pages.Upload(v), pages.UploadStatus(v))
}
