package web

import (
	"context"
	"net/http"
	"time"

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

// freshness tells the page how old its figures are; warning is a refresh that failed,
// whose detail the reports service has logged.
func (h *Handler) freshness(ctx context.Context, at time.Time, warning error, action string) pages.Freshness {
	f := pages.Freshness{At: at, Now: h.now(), Action: action}
	if warning != nil {
		f.Warning = i18n.T(ctx, "dashboard.stale", i18n.From(ctx).DateTime(at), h.upstreamMessage(ctx, warning, false))
	}
	return f
}
