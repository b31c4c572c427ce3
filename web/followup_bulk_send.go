package web

import (
	"net/http"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/outbox"
	"github.com/sekolah/portal/views/pages"
)

// sendFollowUps queues the follow-ups of the previewed students (the selection, as the
// preview listed them): written at once, sent from the next sending hour by the outbox,
// paced by the gateway; one audit entry. Back to the report with what was queued.
func (h *Handler) sendFollowUps(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if err := r.ParseForm(); err != nil {
		h.renderError(w, r, http.StatusBadRequest, "")
		return
	}
	f, _, problem := followUpSelection(ctx, r.PostForm)
	back := outstandingURL(f.Class, f.Account, f.DueFrom, f.DueTo)
	if problem != "" {
		h.render(w, r, http.StatusUnprocessableEntity, pages.FollowUpBulk(pages.FollowUpBulkView{Selection: selectionText(ctx, f),
			ReportURL: back, Error: problem}))
		return
	}
	only := r.PostForm["nis"]
	if len(only) == 0 {
		h.addFlash(w, r, "info", i18n.T(ctx, "outbox.queued_none"))
		h.redirect(w, r, back)
		return
	}
	q, err := h.outbox.QueueFollowUps(ctx, h.actor(r), outbox.FollowUpFilter{Report: f, Only: only})
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	h.flashQueued(w, r, q)
	h.redirect(w, r, back)
}

// flashQueued says what a batch wrote and when it goes.
func (h *Handler) flashQueued(w http.ResponseWriter, r *http.Request, q outbox.Queued) {
	ctx := r.Context()
	switch {
	case q.Messages == 0:
		h.addFlash(w, r, "info", i18n.T(ctx, "outbox.queued_none"))
	case q.At.After(h.now()):
		h.addFlash(w, r, "success", i18n.T(ctx, "outbox.queued_later", q.Messages, q.Students, i18n.From(ctx).DateTime(q.At)))
	default:
		h.addFlash(w, r, "success", i18n.T(ctx, "outbox.queued", q.Messages, q.Students))
	}
}
