package web

import (
	"net/http"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/outbox"
	"github.com/sekolah/portal/views/pages"
)

// sendNotices queues a class's notices for a term (the students the preview listed):
// sent from the next sending hour on by the outbox; one audit entry.
func (h *Handler) sendNotices(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if err := r.ParseForm(); err != nil {
		h.renderError(w, r, http.StatusBadRequest, "")
		return
	}
	class := r.PostForm.Get("class")
	t, ok := outbox.ParseTerm(r.PostForm.Get("term"))
	if class == "" || !ok {
		v, _ := h.noticesForm(r, class, r.PostForm.Get("term"))
		v.Error = i18n.T(ctx, "outbox.err.class_term")
		h.render(w, r, http.StatusUnprocessableEntity, pages.Notices(v))
		return
	}
	back := withQuery("/notices", "class", class, "term", t.String())
	only := r.PostForm["nis"]
	if len(only) == 0 {
		h.addFlash(w, r, "info", i18n.T(ctx, "outbox.queued_none"))
		h.redirect(w, r, back)
		return
	}
	q, err := h.outbox.QueueNotices(ctx, h.actor(r), class, t, only)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	h.flashQueued(w, r, q)
	h.redirect(w, r, back)
}
