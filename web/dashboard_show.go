package web

import (
	"net/http"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/views/pages"
)

// dashboard is the landing page: what came in, what is owed and by whom. A POST (the
// "refresh" control) computes the figures again and comes back here.
func (h *Handler) dashboard(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	res, err := h.reports.Dashboard(ctx, r.Method == http.MethodPost)
	if r.Method == http.MethodPost {
		h.redirect(w, r, "/")
		return
	}
	v := pages.DashboardView{Today: h.reports.Today()}
	status := http.StatusOK
	if err != nil {
		h.log.Error("dashboard figures", "err", err)
		v.Error = i18n.T(ctx, "dashboard.unavailable", h.upstreamMessage(ctx, err, false))
		status = http.StatusBadGateway
	} else {
		v = dashboardView(ctx, res.Value)
		v.Fresh = h.freshness(ctx, res.At, res.Warning, "/")
	}
	h.page(w, r, status, pages.Dashboard(v), pages.DashboardBody(v))
}
