package web

import (
	"github.com/sekolah/portal/views/pages"
	"net/http"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/views/viewctx"
)

// Audit action of an admin asking for a full reconcile.
const actionReconcileAsk = "ledger.reconcile.ask"

// askReconcile records an admin's request for a full reconcile: whichever instance holds
// the sync runs it within seconds; the data page shows it waiting, running, and what it
// corrected (each correction is audited by the reconcile itself).
func (h *Handler) askReconcile(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	p, _ := viewctx.CurrentPerson(ctx)
	if !h.confirmed(w, r, pages.ConfirmStep{
		Title: i18n.T(ctx, "settings.data.reconcile_now"), Question: i18n.T(ctx, "settings.data.reconcile_confirm"),
		Button: i18n.T(ctx, "settings.data.reconcile_now"), Back: "/settings/data",
	}) {
		return
	}
	if err := h.sync.AskReconcile(ctx, p.Username); err != nil {
		h.serverError(w, r, err)
		return
	}
	h.audit(r, actionReconcileAsk, "ledger", "ok", "")
	h.addFlash(w, r, "success", i18n.T(ctx, "settings.data.reconcile_asked"))
	h.redirect(w, r, "/settings/data")
}
