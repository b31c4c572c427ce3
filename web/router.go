package web

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/static"
)

// maxFormBytes bounds ordinary form posts; uploads get their own limit on their route.
const maxFormBytes = 1 << 20

// New builds the portal's HTTP handler: every route is registered here, grouped by section.
func New(d Deps) http.Handler {
	h := newHandler(d)
	r := chi.NewRouter()

	// Global stack: request id, real address (only behind a trusted proxy), panic → 500
	// page, one log line per request, security headers on everything.
	r.Use(middleware.RequestID)
	if h.cfg.TrustProxy {
		r.Use(middleware.RealIP)
	}
	r.Use(h.requestLogger, h.recoverer, securityHeaders)
	r.NotFound(h.withSession(h.notFound))
	r.MethodNotAllowed(h.withSession(func(w http.ResponseWriter, r *http.Request) {
		h.renderError(w, r, http.StatusMethodNotAllowed, "")
	}))

	// Outside sessions: health and embedded assets.
	r.Get("/healthz", h.healthz)
	r.Handle("/static/*", static.Handler())

	r.Group(func(r chi.Router) {
		// Session → CSRF, for everything a person sees.
		r.Use(limitBody(maxFormBytes), h.loadSession, h.csrf, http.NewCrossOriginProtection().Handler)

		// Sign-in and language, open to everyone.
		r.Get("/login", h.showLogin)
		r.Post("/login", h.submitLogin)
		r.Post("/lang", h.switchLanguage)

		r.Group(func(r chi.Router) {
			r.Use(h.requireSignIn)
			r.Post("/logout", h.logout)

			// Dashboard: the figures for principals, finance and admins; POST refreshes them.
			r.With(h.require(auth.ReadBilling)).Get("/", h.dashboard)
			r.With(h.require(auth.ReadBilling)).Post("/", h.dashboard)

			// Reports, each also as a file (?format=xlsx or csv); POST refreshes the figures.
			r.Route("/reports", func(r chi.Router) {
				r.Use(h.require(auth.ReadReports))
				r.Get("/", h.reportsIndex)
				r.Get("/payments", h.reportPayments)
				r.Post("/payments", h.reportPayments)
				r.Get("/outstanding", h.reportOutstanding)
				r.Post("/outstanding", h.reportOutstanding)
				r.Get("/statement", h.reportStatement)
				r.Post("/statement", h.reportStatement)
				r.Get("/accounts", h.reportAccounts)
				r.Post("/accounts", h.reportAccounts)
			})

			// Audit log.
			r.With(h.require(auth.ReadAudit)).Get("/audit", h.listAudit)

			// Staff accounts (admins only).
			r.Route("/staff", func(r chi.Router) {
				r.Use(h.require(auth.ManageStaff))
				r.Get("/", h.listStaff)
				r.Post("/", h.createStaff)
				r.Route("/{id}", func(r chi.Router) {
					r.Use(h.staffCtx)
					r.Get("/", h.showStaff)
					r.Post("/role", h.changeStaffRole)
					r.Post("/disable", h.disableStaff)
					r.Post("/enable", h.enableStaff)
					r.Post("/password", h.resetStaffPassword)
				})
			})
		})
	})
	return r
}

// withSession gives handlers outside the session group (404, 405) the person's language
// and shell.
func (h *Handler) withSession(fn http.HandlerFunc) http.HandlerFunc {
	return h.loadSession(fn).ServeHTTP
}
