package web

import (
	"errors"
	"net/http"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/students"
	"github.com/sekolah/portal/views/pages"
	"github.com/sekolah/portal/views/viewctx"
)

// startSync starts the roster sync in the background (or joins the one under way) and
// shows its progress.
func (h *Handler) startSync(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	p, _ := viewctx.CurrentPerson(ctx)
	err := h.syncer.Sync(p.Username)
	switch {
	case err == nil:
		h.audit(r, "students.sync", "", "ok", "")
	case errors.Is(err, students.ErrSyncRunning):
		// Pressed twice, or by two people: one run is enough; show the one under way.
	default:
		h.serverError(w, r, err)
		return
	}
	if isPartial(r) {
		v := h.syncView(ctx)
		if finished(v) {
			w.Header().Set("HX-Trigger", "students-synced")
		}
		h.render(w, r, http.StatusOK, pages.SyncStatus(v))
		return
	}
	key := "students.sync.started"
	if err != nil {
		key = "students.sync.already"
	}
	h.addFlash(w, r, "info", i18n.T(ctx, key))
	h.redirect(w, r, "/students")
}
