// Package web is the portal's HTTP layer: the router, middleware, handlers and response helpers.
// Handlers are thin: decode and validate a form, call one domain function, render a view.
package web

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/gorilla/sessions"

	"github.com/sekolah/portal/internal/app"
	"github.com/sekolah/portal/internal/audit"
	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/changes"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/config"
	"github.com/sekolah/portal/internal/corrections"
	"github.com/sekolah/portal/internal/counter"
	"github.com/sekolah/portal/internal/followups"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/letters"
	"github.com/sekolah/portal/internal/messaging"
	"github.com/sekolah/portal/internal/metrics"
	"github.com/sekolah/portal/internal/outbox"
	"github.com/sekolah/portal/internal/parents"
	"github.com/sekolah/portal/internal/registration"
	"github.com/sekolah/portal/internal/reports"
	"github.com/sekolah/portal/internal/school"
	"github.com/sekolah/portal/internal/students"
	"github.com/sekolah/portal/internal/uploads"
)

// Deps are what the handlers need: the portal's services, built and started by the
// caller (cmd/portal, or internal/portaltest the same way), and the cookie keys.
type Deps struct {
	App *app.App
	// SessionKeys are the hash and block keys of the session cookie (32 bytes each).
	SessionKeys [2][]byte
}

// Handler holds the dependencies of every handler method.
type Handler struct {
	cfg          config.Config
	auth         *auth.Service
	auditLog     audit.Log
	writer       *changes.Writer
	reports      *reports.Service
	students     *students.Service
	registration *registration.Service
	counter      *counter.Service
	school       *school.Service
	followups    *followups.Service
	letters      *letters.Service
	parents      *parents.Service
	parentPages  *parents.Limiter // how often one address opens parent pages
	messaging    *messaging.Service
	outbox       *outbox.Service // the messages the portal sends parents on its own
	uploads      *uploads.Runner
	corrections  *corrections.Runner
	ledger       *ledger.Ledger // what every page reads
	sync         *ledger.Syncer // the ledger's sync: asked to run now by people
	log          *slog.Logger
	ping         func(context.Context) error // whether the database answers
	sessions     *sessions.CookieStore
	// clock is the portal's clock (App.Clock): now, the school's zone, today.
	clk clock.Clock
	// callbacks are the service's payment callbacks: stored, then confirmed with the service.
	callbacks *ledger.Confirmer
	// metrics time each request (nil: PORTAL_METRICS_ADDR is off).
	metrics *metrics.Metrics
}

func newHandler(d Deps) *Handler {
	a := d.App
	cs := sessions.NewCookieStore(d.SessionKeys[0], d.SessionKeys[1])
	cs.Options = &sessions.Options{Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode}
	// The cookie itself lives for the browser session; what it grants is decided by the
	// session's row in the database (idle and absolute expiry, revocation): see session.go.
	cs.MaxAge(0)
	h := &Handler{
		cfg: a.Config, auth: a.Auth, auditLog: a.Audit, writer: a.Writer, reports: a.Reports,
		students: a.Students, registration: a.Registration, counter: a.Counter, school: a.School, followups: a.FollowUps, letters: a.Letters, parents: a.Parents, parentPages: a.ParentPages, messaging: a.Messaging, outbox: a.Outbox, uploads: a.Uploads, corrections: a.Corrections, ledger: a.Ledger, sync: a.Sync,
		log: a.Log, sessions: cs, clk: a.Clock, ping: a.Ping, callbacks: a.Callbacks, metrics: a.Metrics,
	}
	if h.log == nil {
		h.log = slog.Default()
	}
	// A request its person left is not an error: see client_gone.go.
	h.log = slog.New(quietCancellations(h.log.Handler()))
	return h
}

// now is the clock's moment now (UTC).
func (h *Handler) now() time.Time { return h.clk.Now() }

// today is now in the school's zone: the "today" of the day rule (component.On,
// billlist), whose date is the school's.
func (h *Handler) today() time.Time { return h.clk.Today() }
