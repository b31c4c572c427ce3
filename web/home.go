package web

import (
	"context"
	"net/http"
	"time"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/views/pages"
	"github.com/sekolah/portal/views/viewctx"
)

// home is the landing page: the sections the person's role opens.
func (h *Handler) home(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	var links []pages.HomeLink
	for _, l := range []struct {
		perm auth.Permission
		link pages.HomeLink
	}{
		{auth.ReadAudit, pages.HomeLink{Href: "/audit", TitleKey: "nav.audit", BodyKey: "home.audit"}},
		{auth.ManageStaff, pages.HomeLink{Href: "/staff", TitleKey: "nav.staff", BodyKey: "home.staff"}},
	} {
		if viewctx.Can(ctx, l.perm) {
			links = append(links, l.link)
		}
	}
	h.render(w, r, http.StatusOK, pages.Home(pages.HomeView{Links: links}))
}

// healthz answers 200 when the database answers, for load balancers and orchestrators.
func (h *Handler) healthz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if err := h.db.Ping(ctx); err != nil {
		h.log.Error("health check", "err", err)
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte("database unavailable\n"))
		return
	}
	_, _ = w.Write([]byte("ok\n"))
}
