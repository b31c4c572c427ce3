// Package app builds the portal's services and background workers once, from the
// configuration, the database and the billing client: the one wiring that cmd/portal
// runs and internal/portaltest tests. web.New takes the App and only builds routes.
//
// The workers (the uploads runner, the ledger's sync, the payment callbacks' confirmer,
// the corrections runner, the pruner of old sign-in attempts and expired sessions, the
// registration intake, the message outbox) start with Start and stop with
// Stop, which returns only once none of them runs any more: the caller closes the
// database after it.
package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/sekolah/portal/internal/audit"
	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/boundlog"
	"github.com/sekolah/portal/internal/changes"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/closing"
	"github.com/sekolah/portal/internal/config"
	"github.com/sekolah/portal/internal/corrections"
	"github.com/sekolah/portal/internal/counter"
	"github.com/sekolah/portal/internal/followups"
	"github.com/sekolah/portal/internal/jobs"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/letters"
	"github.com/sekolah/portal/internal/mail"
	"github.com/sekolah/portal/internal/messaging"
	"github.com/sekolah/portal/internal/metrics"
	"github.com/sekolah/portal/internal/outbox"
	"github.com/sekolah/portal/internal/parents"
	"github.com/sekolah/portal/internal/plans"
	"github.com/sekolah/portal/internal/registration"
	"github.com/sekolah/portal/internal/reports"
	"github.com/sekolah/portal/internal/school"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/students"
	"github.com/sekolah/portal/internal/uploads"
	"github.com/sekolah/portal/internal/whatsapp"
)

// Options are what the portal is built from.
type Options struct {
	Config  config.Config
	DB      *store.DB
	Billing *billing.Client
	Logger  *slog.Logger
	// Now is where the portal's clock reads the moment: nil is the system's time; a test
	// fixes it (internal/portaltest). The clock's zone is Config.Location (PORTAL_TZ).
	Now func() time.Time
	// Auth is the staff accounts service when the caller has built it already (cmd/portal
	// does, for its user commands, with a clock reading Now in the same zone); nil builds
	// one.
	Auth *auth.Service
	// Uploads adjusts the uploads runner's configuration (made from Config) before the
	// runner is built.
	Uploads func(*uploads.Config)
	// Sync adjusts the ledger's sync configuration (made from Config) before the syncer
	// is built.
	Sync func(*ledger.SyncConfig)
	// Callbacks adjusts the payment callbacks' confirmer configuration before it is built.
	Callbacks func(*ledger.ConfirmConfig)
	// Corrections adjusts the correction job runner's configuration before it is built.
	Corrections func(*corrections.Config)
	// Outbox adjusts the message outbox's configuration before it is built.
	Outbox func(*outbox.Config)
	// Plans adjusts the fee plans' configuration (their apply jobs) before they are built.
	Plans func(*plans.Config)
	// MessageSandboxes are the channels whose configuration points at an embedded message
	// sandbox (cmd/portal's demo, the tests): the pages say nothing leaves the machine.
	MessageSandboxes map[messaging.Channel]bool
	// ParentLinkKey signs the parent page links (32 bytes or more); nil: a key generated
	// once and kept in the database. cmd/portal derives it from PORTAL_SESSION_KEY's
	// secret, so a copy of the database alone cannot make links.
	ParentLinkKey []byte
	// Metrics are the instance's metrics (PORTAL_METRICS_ADDR; nil: none), built by the
	// caller before the billing client, whose calls they count: the ledger, the job
	// runners, the requests and a scrape's reads of the database are wired to them here.
	Metrics *metrics.Metrics
}

// Worker is a part that runs in the background of the portal process.
type Worker interface {
	Start(ctx context.Context) error
	Stop(ctx context.Context) error
}

// App is the portal's services, built once.
type App struct {
	Config  config.Config
	DB      *store.DB
	Billing *billing.Client
	Log     *slog.Logger
	// Clock is the portal's one clock (now, the school's zone, today), built from
	// Options.Now and Config.Location and handed to every service and worker.
	Clock clock.Clock

	Auth *auth.Service
	// Audit is the audit log: its pages read it, the pages' own actions are recorded in it.
	Audit audit.Log
	// Students is the roster as the pages read it: a student by NIS (fetched from the
	// service when the roster lacks them), its pages and classes, whether one has payments.
	Students *students.Service
	// Writer is the one door for changes at the service: every part that writes is
	// handed this one.
	Writer       *changes.Writer
	Reports      *reports.Service
	Registration *registration.Service
	Counter      *counter.Service
	// Closing is the cashiers' closing of the day (tutup kas), which locks a cashier's
	// counter once signed.
	Closing *closing.Service
	// School is the school's profile, logo and receipt numbers.
	School *school.Service
	// FollowUps are the WhatsApp messages and reminder letters about arrears.
	FollowUps *followups.Service
	// Letters are the bill letters and reminders a school signs, one or a class at once.
	Letters *letters.Service
	// Parents are the parents' contacts, their page links and the parent page.
	Parents *parents.Service
	// Messaging sends parents WhatsApp messages and e-mail and keeps their record.
	Messaging *messaging.Service
	// ParentPages bounds how often one address opens parent pages.
	ParentPages *parents.Limiter
	// Outbox writes the messages the portal sends parents on its own (receipts,
	// reminders, follow-ups, notices) and sends them, paced, under leases (a worker).
	Outbox *outbox.Service

	// Ledger is the portal's read model of the service: every page reads it.
	Ledger *ledger.Ledger
	// Sync keeps the ledger true to the service: the first fill, the incremental sync
	// every LedgerSyncEvery, the nightly reconcile (a worker, under a database lease).
	Sync *ledger.Syncer
	// Callbacks receives the service's payment callbacks and confirms each with the
	// service before the ledger records it (a worker retries those the service did not
	// answer, under a database lease).
	Callbacks *ledger.Confirmer
	// Uploads is the upload job runner (a worker).
	Uploads *uploads.Runner
	// Corrections runs the correction jobs: bulk corrections and the undo of uploads (a
	// worker).
	Corrections *corrections.Runner
	// Plans are the fee plans: plans, discounts, previews, the apply jobs (a worker), the
	// corrections a change offers, the kartu SPP.
	Plans *plans.Service
	// Discounts is the discounts report (the fee plans' figures).
	Discounts *reports.Discounts
	// Pruner drops old sign-in attempts and expired sessions hourly (a worker).
	Pruner *Periodic
	// Intake sends the public form's applications, or holds them for staff (a worker).
	Intake *registration.Intake
	// Metrics are the instance's metrics (nil when PORTAL_METRICS_ADDR is off): the
	// handlers time each request with them.
	Metrics *metrics.Metrics

	workers []Worker
	started []Worker
}

// New builds every service and worker; nothing runs until Start. It reads the ledger's
// state once (the zone its payment days were computed in).
func New(ctx context.Context, o Options) (*App, error) {
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	// Every value a line carries bounded (a request's path, query, what was typed): the
	// services and the handlers log through this one.
	log = slog.New(boundlog.New(log.Handler()))
	cfg := o.Config
	if cfg.Location == nil {
		return nil, errors.New("app: no time zone (PORTAL_TZ): the school's dates would be guessed")
	}
	clk := clock.New(o.Now, cfg.Location)
	a := &App{Config: cfg, DB: o.DB, Billing: o.Billing, Log: log, Clock: clk, Audit: audit.Log{DB: o.DB, Clock: clk},
		Metrics: o.Metrics}

	a.Auth = o.Auth
	if a.Auth == nil {
		a.Auth = auth.NewService(o.DB, clk)
		a.Auth.Logger, a.Auth.SessionIdle = log, cfg.SessionIdle
	}
	var err error
	a.Ledger, err = ledger.New(ctx, ledger.Config{DB: o.DB, Clock: clk, Verify: o.Billing.VerifyCallback,
		Logger: log.With("component", "ledger"), Observer: o.Metrics.Ledger()})
	if err != nil {
		return nil, fmt.Errorf("app: %w", err)
	}
	scfg := ledger.SyncConfig{Ledger: a.Ledger, Client: o.Billing, Every: cfg.LedgerSyncEvery, ReconcileHour: cfg.LedgerReconcileHour,
		Logger: log.With("component", "ledger-sync")}
	if o.Sync != nil {
		o.Sync(&scfg)
	}
	if a.Sync, err = ledger.NewSyncer(scfg); err != nil {
		return nil, fmt.Errorf("app: %w", err)
	}
	ccb := ledger.ConfirmConfig{Ledger: a.Ledger, Client: o.Billing, Clock: clk,
		Logger: log.With("component", "ledger-callbacks"),
		// A bank payment the service confirmed: the parents' receipt, at once.
		Paid: func(ctx context.Context, p ledger.ConfirmedPayment) {
			a.receipt(ctx, outbox.Payment{Ref: p.Ref, NIS: p.NIS, Name: p.StudentName, Total: p.Total, Paid: p.Items})
		}}
	if o.Callbacks != nil {
		o.Callbacks(&ccb)
	}
	if a.Callbacks, err = ledger.NewConfirmer(ccb); err != nil {
		return nil, fmt.Errorf("app: %w", err)
	}
	a.Writer = &changes.Writer{Client: o.Billing, DB: o.DB, Ledger: a.Ledger, Nudge: a.Sync.Nudge, Log: log, Clock: clk}
	// Every figure about money is the ledger's; a person's "refresh" asks for a sync now.
	a.Reports = reports.New(reports.Config{Ledger: a.Ledger, Roster: o.DB, Logger: log,
		Refresh: func(ctx context.Context) error { return a.Sync.AskSync(ctx, "") }})
	a.Registration = &registration.Service{
		DB: o.DB, Writer: a.Writer, Billing: o.Billing, Accounts: cfg.AccountCodes, Clock: clk, Log: log,
	}
	// The public form's applications: sent by the Intake while the form is under its hourly
	// cap, a call without an answer looked for once the client's whole deadline has passed.
	a.Intake = &registration.Intake{Service: a.Registration, Clock: clk, Settle: cfg.UpstreamDeadline,
		Log: log.With("component", "registration-intake")}
	a.Registration.Nudge = a.Intake.Nudge
	a.Students = &students.Service{DB: o.DB, Billing: o.Billing, Clock: clk}
	a.School = &school.Service{DB: o.DB, Clock: clk, Log: log}
	a.Counter = &counter.Service{Billing: o.Billing, Writer: a.Writer, Steps: &corrections.Steps{Writer: a.Writer, Clock: clk},
		DB: o.DB, School: a.School, Clock: clk, Log: log}
	// The counter keeps each payment's cashier beside the ledger, and refuses the payments
	// of a cashier whose day is closed.
	a.Closing = &closing.Service{DB: o.DB, Ledger: a.Ledger, Clock: clk, Log: log}
	a.Counter.Channels, a.Counter.Closed = a.Ledger, a.Closing.Locked
	a.FollowUps = &followups.Service{DB: o.DB, Ledger: a.Ledger, Clock: clk,
		School: func(ctx context.Context) string {
			p, err := a.School.Profile(ctx)
			if err != nil {
				log.Warn("follow-up: read the school's name", "err", err)
			}
			return p.Name
		}}
	a.Letters = &letters.Service{DB: o.DB, Ledger: a.Ledger, School: a.School, FollowUps: a.FollowUps, Clock: clk}
	linkKey := o.ParentLinkKey
	if len(linkKey) == 0 {
		// Without a key from the caller, one kept in the database (generated once).
		hexKey, err := o.DB.EnsureSetting(ctx, "parent_link_key", hex.EncodeToString(randomKey()))
		if err != nil {
			return nil, fmt.Errorf("app: parent link key: %w", err)
		}
		if linkKey, err = hex.DecodeString(hexKey); err != nil {
			return nil, fmt.Errorf("app: parent link key: %w", err)
		}
	}
	a.Parents = &parents.Service{DB: o.DB, Ledger: a.Ledger, School: a.School, Clock: clk, Key: linkKey, PublicURL: cfg.PublicURL, Log: log}
	a.Registration.ParentContacts = a.Parents.FromRegistration
	// A WhatsApp follow-up goes to the parents' number, and never to parents who opted out.
	a.FollowUps.WhatsAppTo = func(ctx context.Context, st store.Student) (string, error) {
		r, err := a.Parents.Recipients(ctx, st)
		switch {
		case err != nil:
			return "", err
		case errors.Is(r.WhatsApp.Err, parents.ErrOptedOut):
			return "", followups.ErrOptedOut
		}
		return r.WhatsApp.Address, r.WhatsApp.Err
	}
	if a.Messaging, err = newMessaging(cfg, o, clk, log); err != nil {
		return nil, fmt.Errorf("app: %w", err)
	}
	ocfg := outbox.Config{DB: o.DB, Messaging: a.Messaging, Parents: a.Parents, Ledger: a.Ledger, Clock: clk,
		School: a.FollowUps.School, Log: log.With("component", "outbox")}
	if o.Outbox != nil {
		o.Outbox(&ocfg)
	}
	a.Outbox = outbox.New(ocfg)
	// A payment at the counter: the parents' receipt, at once.
	a.Counter.Paid = func(ctx context.Context, p counter.Payment) {
		pay := outbox.Payment{Ref: p.Ref, NIS: p.NIS, Name: p.Name, Total: p.Paid}
		for _, l := range p.Chosen.Lines {
			pay.Paid = append(pay.Paid, l.Bill.Name)
		}
		a.receipt(ctx, pay)
	}
	// A page a minute for a school's parents behind one address is plenty; ten wrong links
	// in ten minutes is someone guessing.
	a.ParentPages = parents.NewLimiter(clk, 120, 10, 10*time.Minute)

	// The job runners take the portal's clock like every service; the test harness gives
	// them the system's (their leases are compared across instances through the database,
	// and their waits must pass, which a fixed clock never does).
	ucfg := uploads.ConfigFrom(cfg, clk)
	if o.Uploads != nil {
		o.Uploads(&ucfg)
	}
	a.Uploads = uploads.NewRunner(ucfg, o.DB, o.Billing, a.Writer, log.With("component", "uploads"))
	// Sign-in attempts too old to matter for lock-outs, expired sessions and WhatsApp
	// statuses a week old that named no message of the portal's go hourly, so the tables
	// stay small however long the portal runs.
	a.Pruner = &Periodic{Name: "prune sign-in attempts, expired sessions and stray message statuses", Interval: time.Hour, Log: log,
		Run: func(ctx context.Context) error {
			_, errSignIns := a.Auth.PruneSignIns(ctx)
			_, errSessions := a.Auth.PruneSessions(ctx)
			_, errStatuses := o.DB.PruneEarlyMessageStatuses(ctx, clk.Now().Add(-7*24*time.Hour))
			return errors.Join(errSignIns, errSessions, errStatuses)
		}}
	// A call without an answer is given the client's timeout to land before it is read.
	ccfg := corrections.Config{Settle: cfg.UpstreamTimeout, Clock: clk}
	if o.Corrections != nil {
		o.Corrections(&ccfg)
	}
	a.Corrections = corrections.NewRunner(ccfg, o.DB, a.Writer, log.With("component", "corrections"))
	// A plan's apply job sends in the uploads' batches, as many at once, and waits for a
	// service that stopped answering as long as an upload does.
	pcfg := plans.Config{Accounts: cfg.AccountCodes, ChunkSize: cfg.UploadChunkSize, Concurrency: cfg.UploadConcurrency,
		Settle: cfg.UpstreamTimeout, WaitFor: cfg.UploadWait, Clock: clk}
	if o.Plans != nil {
		o.Plans(&pcfg)
	}
	a.Plans = plans.New(pcfg, o.DB, a.Ledger, a.Writer, a.Corrections, log.With("component", "plans"))
	a.Discounts = reports.NewDiscounts(a.Plans, clk.Zone())
	a.workers = []Worker{a.Uploads, a.Sync, a.Callbacks, a.Corrections, a.Plans, a.Pruner, a.Intake, a.Outbox}
	// What a scrape reads from the database: the same on every instance. The job kinds
	// tell the metrics of themselves when they start (Start).
	o.Metrics.Read(metrics.Sources{Ledger: a.Ledger, Applications: a.waitingApplications})
	return a, nil
}

// waitingApplications counts the public form's applications that wait, by state: for the
// Intake, being sent, held for staff (the metrics).
func (a *App) waitingApplications(ctx context.Context) (map[string]int, error) {
	out := map[string]int{}
	for _, s := range []registration.ApplicationState{registration.StateNew, registration.StateSending, registration.StatePending} {
		n, err := a.DB.CountRegistrationApplications(ctx, string(s))
		if err != nil {
			return nil, err
		}
		out[string(s)] = n
	}
	return out, nil
}

// Start starts every worker (the uploads runner resumes what a previous process left).
// When one fails to start, those already started are stopped again.
func (a *App) Start(ctx context.Context) error {
	// Every job kind's runner tells the metrics of itself as it starts (internal/jobs).
	ctx = jobs.WithWatcher(ctx, a.Metrics.Jobs())
	for _, w := range a.workers {
		if err := w.Start(ctx); err != nil {
			stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
			defer cancel()
			return errors.Join(fmt.Errorf("app: start %T: %w", w, err), a.Stop(stopCtx))
		}
		a.started = append(a.started, w)
	}
	return nil
}

// Stop stops every started worker, the last started first, and returns once each has
// ended or ctx is done (then the uploads runner aborts its calls in flight: their chunks
// are reconciled at the next start).
func (a *App) Stop(ctx context.Context) error {
	var errs []error
	for i := len(a.started) - 1; i >= 0; i-- {
		if err := a.started[i].Stop(ctx); err != nil {
			errs = append(errs, fmt.Errorf("app: stop %T: %w", a.started[i], err))
		}
	}
	a.started = nil
	return errors.Join(errs...)
}

// PrepareDemo makes the embedded sandbox's demo school usable at once: a sample fee
// template is there for the registration wizard and the school has a sample profile for
// its receipts and letters (the roster and the bills arrive with the ledger's first fill,
// which Start sets going). cmd/portal runs it after Start when it serves the embedded
// sandbox.
func (a *App) PrepareDemo(ctx context.Context) error {
	var errs []error
	if _, err := a.Registration.EnsureDemoTemplate(ctx); err != nil {
		errs = append(errs, err)
	}
	if _, err := a.School.EnsureDemoProfile(ctx); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// receipt writes a payment's receipt to the parents; a failure is logged (the payment
// stands, whatever becomes of its thanks).
func (a *App) receipt(ctx context.Context, p outbox.Payment) {
	if _, err := a.Outbox.Receipt(ctx, p); err != nil {
		a.Log.Error("outbox: write a payment's receipt", "ref", p.Ref, "nis", p.NIS, "err", err)
	}
}

func randomKey() []byte {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return b
}

// newMessaging builds the message clients the configuration names (a channel without
// one stays off) and the service that sends through them.
func newMessaging(cfg config.Config, o Options, clk clock.Clock, log *slog.Logger) (*messaging.Service, error) {
	m := &messaging.Service{DB: o.DB, Clock: clk, Log: log.With("component", "messages"), Sandboxed: o.MessageSandboxes}
	if cfg.PublicURL != "" {
		m.WebhookURL = cfg.PublicURL + "/hooks/whatsapp"
	}
	if w := cfg.WhatsApp; w.Configured() {
		c, err := whatsapp.New(whatsapp.Config{BaseURL: w.URL, Token: w.Token, PhoneNumberID: w.PhoneID, AppSecret: w.AppSecret, VerifyToken: w.VerifyToken})
		if err != nil {
			return nil, err
		}
		m.WhatsApp = c
	}
	if s := cfg.SMTP; s.Configured() {
		from := s.From
		if from == "" {
			from = "Portal Sekolah <keuangan@sekolah.invalid>"
		}
		c, err := mail.New(mail.Config{Host: s.Host, Port: s.Port, Username: s.Username, Password: s.Password, Implicit: s.Implicit,
			From: from, Now: clk.Func()})
		if err != nil {
			return nil, err
		}
		m.Mail = c
	}
	return m, nil
}
