package web

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/sekolah/portal/internal/corrections"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/internal/uploads"
	"github.com/sekolah/portal/views/pages"
)

// uploadUndoView is the undo card of a finished components upload: what undoing it would
// do, or, once undone, what it did. nil when there is nothing to offer.
func (h *Handler) uploadUndoView(ctx context.Context, j uploads.Job) *pages.UploadUndoView {
	if uploads.Kind(j.Kind) != uploads.Components || !uploads.StateOf(j).Finished() {
		return nil
	}
	v := &pages.UploadUndoView{UploadID: j.ID, Errors: map[string]string{}}
	job, err := h.corrections.JobForUpload(ctx, j.ID)
	switch {
	case err == nil:
		v.Undone, v.JobURL, v.JobState, v.Running = true, correctionURL(job.ID), job.State, corrections.Running(job.State)
		v.Done, v.Kept, v.Failed = job.Done, job.Skipped, job.Failed
		items, err := h.corrections.Items(ctx, job.ID, corrections.ItemSkipped)
		if err != nil {
			h.log.Error("undo of an upload: kept items", "upload", j.ID, "err", err)
		}
		for _, it := range items {
			v.KeptItems = append(v.KeptItems, pages.CorrectionItemRow{NIS: it.NIS, Student: it.StudentName, Name: it.Name,
				State: it.State, Why: problemWords(ctx, it.Problem)})
		}
		return v
	case !errors.Is(err, corrections.ErrNotFound):
		h.log.Error("undo of an upload", "upload", j.ID, "err", err)
		return nil
	}
	plan, err := h.corrections.Undo(ctx, j.ID)
	if err != nil {
		h.log.Error("undo of an upload: plan", "upload", j.ID, "err", err)
		return nil
	}
	if len(plan.Cancel)+len(plan.Paid) == 0 {
		return nil // nothing recorded as created by it (or everything cancelled already)
	}
	v.Count, v.Amount, v.Cancelled = len(plan.Cancel), plan.Amount, plan.Cancelled
	for _, c := range plan.Paid {
		v.Paid = append(v.Paid, pages.CancelItem{ID: c.ID, Name: c.StudentName + " (" + c.NIS + ") · " + c.Name, Amount: c.AmountPaid})
	}
	v.Reason = i18n.T(ctx, "corrections.undo.reason_default", j.FileName)
	return v
}

// problemWords words an item's problem: a catalogue key, or the service's own words.
func problemWords(ctx context.Context, p string) string {
	if strings.HasPrefix(p, "corrections.") {
		return i18n.T(ctx, p)
	}
	return i18n.T(ctx, "corrections.problem.refused", p)
}

// undoUpload cancels, as a correction job, the components a finished upload created
// that are still unpaid; the paid ones are kept and listed. An upload is undone once.
func (h *Handler) undoUpload(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if err := r.ParseForm(); err != nil {
		h.renderError(w, r, http.StatusBadRequest, "")
		return
	}
	j := uploadFrom(r)
	u := h.uploadUndoView(ctx, j)
	if u == nil || u.Undone || u.Count == 0 {
		h.addFlash(w, r, "error", i18n.T(ctx, "corrections.undo.not_possible"))
		h.redirect(w, r, uploadURL(j.ID))
		return
	}
	reason := strings.TrimSpace(r.PostForm.Get("reason"))
	var probs problem.List
	corrections.CheckReason(&probs, reason)
	if len(probs) > 0 {
		v, err := h.uploadView(ctx, j, 0)
		if err != nil {
			h.serverError(w, r, err)
			return
		}
		v.Undo.Reason, v.Undo.Errors = reason, problemMessages(ctx, probs)
		h.render(w, r, http.StatusUnprocessableEntity, pages.Upload(v))
		return
	}
	plan, err := h.corrections.Undo(ctx, j.ID)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	req := plan.Request(j.ID, reason)
	req.Actor = h.actor(r)
	if _, err := h.corrections.Submit(ctx, req); errors.Is(err, corrections.ErrAlreadyUndone) {
		h.addFlash(w, r, "error", i18n.T(ctx, "corrections.undo.not_possible"))
		h.redirect(w, r, uploadURL(j.ID))
		return
	} else if err != nil {
		h.serverError(w, r, err)
		return
	}
	h.addFlash(w, r, "success", i18n.T(ctx, "corrections.undo.started", len(plan.Cancel)))
	h.redirect(w, r, uploadURL(j.ID))
}
