package web

import (
	"net/http"

	"github.com/sekolah/portal/internal/audit"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/views/pages"
	"github.com/sekolah/portal/views/viewctx"
)

// startSync asks the ledger's sync to run now: the request is recorded in the database,
// and whichever instance holds the sync runs it within seconds (asking twice is one
// sync). The page shows it waiting, then running, then what it found.
func (h *Handler) startSync(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	p, _ := viewctx.CurrentPerson(ctx)
	if err := h.sync.AskSync(ctx, p.Username); err != nil {
		h.serverError(w, r, err)
		return
	}
	e := auditStudentsSync.With()
	e.Outcome = audit.OK
	h.record(r, e)
	if isPartial(r) {
		v, err := h.syncView(ctx)
		if err != nil {
			h.serverError(w, r, err)
			return
		}
		h.render(w, r, http.StatusOK, pages.SyncStatus(v))
		return
	}
	h.addFlash(w, r, "info", i18n.T(ctx, "students.sync.started"))
	h.redirect(w, r, "/students")
}
