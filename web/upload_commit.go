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

// commitUploadStep asks before an upload's rows go to the payment service: how many new
// rows and how many corrections, in the words of the preview's button.
func (h *Handler) commitUploadStep(r *http.Request, j uploads.Job) pages.ConfirmStep {
	ctx := r.Context()
	step := pages.ConfirmStep{Title: i18n.T(ctx, "confirm.upload_commit"), Back: uploadURL(j.ID)}
	v, err := h.uploadView(ctx, j, 0)
	switch {
	case err != nil:
		// The preview cannot be read now: the question without its figures.
		step.Question = i18n.T(ctx, "confirm.upload_commit_ask")
		step.Button = i18n.T(ctx, "confirm.upload_commit")
	case v.ChangeCount > 0:
		step.Question = i18n.T(ctx, "uploads.commit_rows_confirm."+v.Kind, i18n.Number(int64(v.New)), i18n.Number(int64(v.ChangeCount)))
		step.Button = i18n.T(ctx, "uploads.commit_rows", i18n.Number(int64(v.New+v.ChangeCount)))
	default:
		step.Question = i18n.T(ctx, "uploads.commit_confirm", i18n.Number(int64(v.New)))
		step.Button = i18n.T(ctx, "uploads.commit", i18n.Number(int64(v.New)))
	}
	return step
}

// commitUpload starts the job that sends the new rows, once the person has acknowledged
// each kind of warning the preview lists (the form's "ack" values); without them it shows
// the preview again (422) saying what to acknowledge, the ticked boxes kept.
func (h *Handler) commitUpload(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	j := uploadFrom(r)
	if !h.confirmed(w, r, h.commitUploadStep(r, j)) {
		return
	}
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
