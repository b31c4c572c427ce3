// Package web is the portal's HTTP layer: the router, middleware, handlers and response helpers.
// Handlers are thin: decode and validate a form, call one domain function, render a view.
package web

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/gorilla/sessions"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/config"
	"github.com/sekolah/portal/internal/reports"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/students"
	"github.com/sekolah/portal/internal/uploads"
	"github.com/sekolah/portal/internal/upstream"
)

// Deps are what the handlers need; cmd/portal builds them.
type Deps struct {
	Config  config.Config
	DB      *store.DB
	Auth    *auth.Service
	Billing *billing.Client
	Logger  *slog.Logger
	// SessionKeys are the hash and block keys of the session cookie (32 bytes each).
	SessionKeys [2][]byte
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Uploads runs the bulk upload jobs. cmd/portal starts it on serve and stops it on
	// shutdown; nil makes New build and start one that is never stopped (fine for tools
	// and tests that do not restart the portal).
	Uploads *uploads.Runner
	// Demo marks a portal on the embedded sandbox: an empty roster is filled from the demo
	// school at once and a sample fee template is offered, so every page can be tried
	// without anyone setting anything up first.
	Demo bool
}

// Handler holds the dependencies of every handler method.
type Handler struct {
	cfg      config.Config
	db       *store.DB
	auth     *auth.Service
	billing  *billing.Client
	writer   *upstream.Writer
	reports  *reports.Service
	log      *slog.Logger
	sessions *sessions.CookieStore
	now      func() time.Time
	uploads  *uploads.Runner
	syncer   *students.Syncer // the roster sync job: one per portal process
}

func newHandler(d Deps) *Handler {
	now := d.Now
	if now == nil {
		now = time.Now
	}
	log := d.Logger
	if log == nil {
		log = slog.Default()
	}
	cs := sessions.NewCookieStore(d.SessionKeys[0], d.SessionKeys[1])
	cs.Options = &sessions.Options{Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode}
	// The cookie itself lives for the browser session; what it grants is decided by the
	// session's row in the database (idle and absolute expiry, revocation): see session.go.
	cs.MaxAge(0)
	h := &Handler{
		cfg: d.Config, db: d.DB, auth: d.Auth, billing: d.Billing, log: log,
		// Every upstream write goes through the writer, which audits it.
		writer: &upstream.Writer{Client: d.Billing, DB: d.DB, Log: log, Now: now},
		// Every figure about money is computed (and cached) by the reports service.
		reports: reports.New(reports.Config{
			Source: d.Billing, Roster: d.DB, Location: d.Config.Location, Now: now,
			CacheTTL: d.Config.ReportCacheTTL, Logger: log,
		}),
		sessions: cs, now: now, uploads: d.Uploads,
		syncer: &students.Syncer{Billing: d.Billing, DB: d.DB, Log: log, Now: now, Location: d.Config.Location},
	}
	return h
}

// startUploads builds and starts the upload job runner when the caller did not bring one
// (cmd/portal and the test harness do, to stop it on shutdown).
func (h *Handler) startUploads(d Deps) {
	if h.uploads != nil {
		return
	}
	h.uploads = uploads.NewRunner(uploads.ConfigFrom(d.Config), d.DB, d.Billing, h.writer, h.log.With("component", "uploads"))
	if err := h.uploads.Start(context.Background()); err != nil {
		h.log.Error("start upload runner", "err", err)
	}
}
