package web

import (
	"net/http"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/views/pages"
)

// dashboard is the landing page: what came in, what is owed and by whom, from the
// ledger. A POST (the "sync now" control) asks for a sync and comes back here. An open
// page asks every LiveEvery whether the figures changed (?live=token): 204 when they did
// not, else the figures again.
func (h *Handler) dashboard(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if r.Method == http.MethodPost {
		h.reports.Refresh(ctx)
		h.redirect(w, r, "/")
		return
	}
	fresh, err := h.ledger.Freshness(ctx)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	token := h.liveToken(fresh)
	if h.unchanged(w, r, token) {
		return
	}
	res, err := h.reports.Dashboard(ctx, false)
	v := pages.DashboardView{Today: h.reports.Today()}
	status := http.StatusOK
	if err != nil {
		h.log.Error("dashboard figures from the ledger", "err", err)
		v.Error = i18n.T(ctx, "ledger.unreadable")
		status = http.StatusInternalServerError
	} else {
		v = dashboardView(ctx, res.Value)
		v.Channels = h.dashboardChannels(ctx)
		fresh = res.Fresh
	}
	v.Fresh = h.freshness(ctx, fresh, "/")
	v.Unconfirmed = h.unconfirmedNotice(ctx)
	v.Live = h.live("/?", token)
	h.page(w, r, status, pages.Dashboard(v), pages.DashboardLive(v))
}
