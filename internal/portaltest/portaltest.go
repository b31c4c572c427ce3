// Package portaltest starts the whole portal for tests: a migrated SQLite file, the real
// sandbox over real HTTP, the billing client and the web handler on a loopback port, plus
// a small cookie-keeping HTTP client that signs in and sends CSRF tokens like a browser.
package portaltest

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/sekolah/portal/internal/app"
	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/config"
	"github.com/sekolah/portal/internal/corrections"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/messagesandbox"
	"github.com/sekolah/portal/internal/messaging"
	"github.com/sekolah/portal/internal/metrics"
	"github.com/sekolah/portal/internal/outbox"
	"github.com/sekolah/portal/internal/sandbox"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/store/storetest"
	"github.com/sekolah/portal/internal/uploads"
	"github.com/sekolah/portal/web"
)

// Password is the password of every account the harness creates.
const Password = "correct-horse-battery"

// Options shape the portal under test.
type Options struct {
	// Now fixes the clock of the portal and the sandbox; zero means real time.
	Now time.Time
	// Demo loads the sandbox's demo school.
	Demo bool
	// Env is the upstream environment the banner shows (sandbox by default).
	Env string
	// UpstreamTimeout bounds each call to the sandbox (default 5s).
	UpstreamTimeout time.Duration
	// Uploads adjusts the upload runner's configuration (files, chunk size, retries)
	// before it starts.
	Uploads func(*uploads.Config)
	// Config adjusts the portal's configuration (trusted proxies, session limits) before
	// anything is built from it.
	Config func(*config.Config)
	// Sandbox adjusts the sandbox's options before it starts: the looser service of
	// contract version 2 (MaxLimit, CapSilently, Zoneless), another Location than the
	// portal's, a CallbackURL.
	Sandbox func(*sandbox.Options)
	// Billing adjusts the billing client's configuration before it is built.
	Billing func(*billing.Config)
	// Postgres runs the portal on a PostgreSQL schema of its own instead of a SQLite file;
	// the test is skipped unless PORTAL_TEST_POSTGRES_URL is set (CI sets it). Each
	// Instance then opens its own connection pool on that schema, as another process would.
	Postgres bool
	// Upstream wraps the sandbox's HTTP handler, to hold or watch the portal's calls
	// (a test that proves an export streams holds the last day's search).
	Upstream func(http.Handler) http.Handler
	// Watch sees every request that reaches the sandbox, before the sandbox answers it (a
	// test that proves what the portal never sends). It must not read the body. It
	// changes nothing the portal is given, so a portal that sets it still starts
	// from copies (see snapshot).
	Watch func(*http.Request)
	// Sync adjusts the ledger's sync configuration before the syncer is built.
	Sync func(*ledger.SyncConfig)
	// Messages starts the message sandboxes (a WhatsApp Cloud API posting its statuses to
	// the portal's webhook within milliseconds, and an SMTP server) and points the portal
	// at them, as cmd/portal's demo does: Portal.WhatsApp and Portal.Mail.
	Messages bool
	// Outbox adjusts the message outbox's configuration (after the harness's own: the
	// system's clock for its runner, short waits) before it is built.
	Outbox func(*outbox.Config)
	// NoFirstSync leaves the ledger as Start found it: Start does not wait for the first
	// sync (a test of the portal while it fills, or while the service is down from the
	// start).
	NoFirstSync bool
	// Metrics gives the instance its metrics, served on a listener of their own
	// (Portal.MetricsURL), as PORTAL_METRICS_ADDR does. The billing client, shared by the
	// instances, reports its calls to the first instance's. Like Watch, it changes nothing
	// the portal is given: a portal that sets it still starts from copies.
	Metrics bool
}

// Portal is a running portal and its parts.
type Portal struct {
	URL     string
	Server  *httptest.Server
	DB      *store.DB
	Auth    *auth.Service
	Sandbox *sandbox.Server
	// SandboxURL is where the sandbox answers over HTTP (its /_sandbox routes too).
	SandboxURL string
	Billing    *billing.Client
	Config     config.Config
	// Uploads is the upload job runner, started with the portal.
	Uploads *uploads.Runner
	// Metrics and MetricsURL (its /metrics, on a port of its own) are there with
	// Options.Metrics.
	Metrics    *metrics.Metrics
	MetricsURL string
	// App is every service and worker of this instance, wired as cmd/portal wires them.
	App   *app.App
	clock *portalClock
	opts  Options
	log   *slog.Logger
	// dbURL is the database every instance opens (PostgreSQL); empty shares DB (SQLite).
	dbURL string
	stop  func()

	// WhatsApp and Mail are the message sandboxes (Options.Messages), over real HTTP and SMTP.
	WhatsApp *messagesandbox.CloudAPI
	Mail     *messagesandbox.SMTP
}

// portalClock is where the portal's clock (app.Options.Now) reads the moment: fixed when
// set, else real time.
type portalClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *portalClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.t.IsZero() {
		return storetest.RealTime()
	}
	return c.t
}

// SetNow moves the portal's clock (not the sandbox's: use Sandbox.SetClock for that).
func (p *Portal) SetNow(t time.Time) {
	p.clock.mu.Lock()
	defer p.clock.mu.Unlock()
	p.clock.t = t
}

// Start runs a portal for the test and stops it at cleanup. It creates three accounts:
// admin, finance and principal (usernames equal to the role), all with Password.
func Start(t testing.TB, opts Options) *Portal {
	t.Helper()
	auth.SetBcryptCostForTests(4)
	cfg, err := config.Load(func(string) string { return "" })
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	cfg.DataDir = t.TempDir()
	cfg.UpstreamTimeout = opts.UpstreamTimeout
	if cfg.UpstreamTimeout == 0 {
		cfg.UpstreamTimeout = 5 * time.Second
	}
	if opts.Env != "" {
		cfg.UpstreamEnv = opts.Env
	}
	if opts.Config != nil {
		opts.Config(&cfg)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if testing.Verbose() {
		log = slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	clk := &portalClock{t: opts.Now}

	// A portal on a day another test already made one (with the same school, demo or
	// none) starts from copies of that portal's databases (see snapshot); the first one
	// is made here and saved.
	snap, maker := snapshotFor(opts)
	if maker {
		defer snap.done()
	} else if snap != nil && !snap.wait() {
		snap = nil
	}
	copied := snap != nil && !maker

	var db *store.DB
	var dbURL, sandboxPath string
	switch {
	case copied:
		db, sandboxPath = snap.open(t)
	case opts.Postgres:
		dbURL = storetest.MigratedPostgresURL(t)
		db = storetest.Open(t, dbURL)
	default:
		db = storetest.OpenTest(t)
	}
	// The first instance's port is taken now: the sandbox sends its payment callbacks
	// there, to the real route, over real HTTP.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	sbOpts := sandbox.Options{
		Username: "portal", Password: "issued-secret", Location: cfg.Location, Accounts: cfg.AccountCodes,
		Now: opts.Now, Demo: opts.Demo, DBPath: sandboxPath, Logger: log, HangLimit: 30 * time.Second,
		CallbackURL:     "http://" + ln.Addr().String() + "/hooks/payments",
		CallbackRetries: []time.Duration{100 * time.Millisecond, 500 * time.Millisecond, 2 * time.Second},
	}
	if opts.Sandbox != nil {
		opts.Sandbox(&sbOpts)
	}
	sb, err := sandbox.New(sbOpts)
	if err != nil {
		t.Fatalf("sandbox: %v", err)
	}
	var upstream http.Handler = sb
	if opts.Upstream != nil {
		upstream = opts.Upstream(sb)
	}
	if watch, next := opts.Watch, upstream; watch != nil {
		upstream = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			watch(r)
			next.ServeHTTP(w, r)
		})
	}
	sbServer := httptest.NewServer(upstream)
	billingCfg := billing.Config{
		BaseURL: sbServer.URL, Username: "portal", Password: "issued-secret", Location: cfg.Location,
		Timeout: cfg.UpstreamTimeout, Deadline: cfg.UpstreamDeadline, Now: sbNow(sb),
		RetryBase: 10 * time.Millisecond, RetryMax: 50 * time.Millisecond,
	}
	var m *metrics.Metrics
	if opts.Metrics {
		m = newMetrics(t, cfg, clk, log)
		billingCfg.Observe = m.BillingCall
	}
	if opts.Billing != nil {
		opts.Billing(&billingCfg)
	}
	client, err := billing.New(billingCfg)
	if err != nil {
		t.Fatalf("billing client: %v", err)
	}
	// Cleanups run last first: the sandbox outlives the instances that call it.
	t.Cleanup(func() {
		sbServer.Close()
		sb.Close()
	})
	p := &Portal{DB: db, Sandbox: sb, SandboxURL: sbServer.URL, Billing: client, Config: cfg, clock: clk, opts: opts, log: log, dbURL: dbURL,
		Metrics: m}
	if opts.Messages {
		p.startMessages(t, "http://"+ln.Addr().String()+"/hooks/whatsapp")
	}
	p.serve(t, ln)
	if copied {
		return p // the accounts came with the copy
	}
	for _, role := range auth.Roles() {
		p.CreateUser(t, role.String(), role)
	}
	if maker {
		snap.save(t, p)
	}
	return p
}

// serve builds this instance's own parts over the shared database and sandbox the way
// cmd/portal builds them (app.New: every service and worker once; Start; web.New only
// builds the routes), listens on a loopback port, and at cleanup stops the workers
// before the database closes.
func (p *Portal) serve(t testing.TB, ln net.Listener) {
	t.Helper()
	var sandboxed map[messaging.Channel]bool
	if p.WhatsApp != nil {
		sandboxed = map[messaging.Channel]bool{messaging.WhatsApp: true, messaging.Email: true}
	}
	a, err := app.New(t.Context(), app.Options{Config: p.Config, DB: p.DB, Billing: p.Billing, Logger: p.log, Now: p.clock.now, Metrics: p.Metrics,
		MessageSandboxes: sandboxed,
		// The job runners keep the real clock, as the database's own stamps do (storetest):
		// their leases lapse and their waits end only as time passes, which a fixed clock
		// never does. Every page, letter and receipt reads the portal's clock.
		Uploads: func(u *uploads.Config) {
			u.Clock = clock.System(p.Config.Location)
			u.RetryBase, u.RetryMax = 5*time.Millisecond, 50*time.Millisecond
			if p.opts.Uploads != nil {
				p.opts.Uploads(u)
			}
		},
		Corrections: func(c *corrections.Config) { c.Clock = clock.System(p.Config.Location) },
		// The outbox's runner keeps the real clock too; its sending hours and days read the
		// portal's. A message without an answer is looked at after moments, not 30 s.
		Outbox: func(c *outbox.Config) {
			c.Jobs = clock.System(p.Config.Location)
			c.RetryBase, c.RetryMax, c.Settle, c.LeaseTTL = 5*time.Millisecond, 50*time.Millisecond, 200*time.Millisecond, 3*time.Second
			if p.opts.Outbox != nil {
				p.opts.Outbox(c)
			}
		},
		Sync: func(s *ledger.SyncConfig) {
			s.AskPoll = 100 * time.Millisecond // a request to sync now, made on another instance, is seen at once
			if p.opts.Sync != nil {
				p.opts.Sync(s)
			}
		},
		// A payment callback the service did not confirm at once is asked about again
		// within moments, not seconds.
		Callbacks: func(c *ledger.ConfirmConfig) {
			c.RetryBase, c.RetryMax, c.Poll = 20*time.Millisecond, 200*time.Millisecond, 200*time.Millisecond
		}})
	if err != nil {
		t.Fatalf("build the portal: %v", err)
	}
	if p.opts.Uploads != nil {
		p.Config.UploadMaxBytes = a.Uploads.Config().MaxBytes // the form's body limit follows
		a.Config = p.Config
	}
	if err := a.Start(t.Context()); err != nil {
		t.Fatalf("start the portal's workers: %v", err)
	}
	if !p.opts.NoFirstSync {
		// The portal is ready once its ledger holds what the sandbox holds: the loop's
		// first run (a first fill and the sync after it) has ended.
		select {
		case <-a.Sync.FirstRun():
		case <-time.After(2 * time.Minute):
			t.Fatal("the ledger's first sync did not end within 2 minutes")
		}
	}
	h := web.New(web.Deps{App: a, SessionKeys: [2][]byte{[]byte(strings.Repeat("k", 32)), []byte(strings.Repeat("b", 32))}})
	srv := httptest.NewUnstartedServer(h)
	if ln != nil {
		srv.Listener.Close()
		srv.Listener = ln
	}
	srv.Start()
	p.URL, p.Server, p.Auth, p.Uploads, p.App = srv.URL, srv, a.Auth, a.Uploads, a
	var metricsSrv *httptest.Server
	if p.Metrics != nil {
		metricsSrv = httptest.NewServer(p.Metrics.Handler())
		p.MetricsURL = metricsSrv.URL + metrics.Path
	}
	p.stop = sync.OnceFunc(func() {
		srv.Close()
		if metricsSrv != nil {
			metricsSrv.Close()
		}
		stopCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := a.Stop(stopCtx); err != nil {
			t.Errorf("stop the portal's workers: %v", err)
		}
	})
	t.Cleanup(p.stop)
}

// Stop stops this instance as cmd/portal does at SIGTERM: its server first, then its
// workers (an upload job under way releases its lease, for another instance to go on).
// The database and the sandbox stay for the other instances; Stop is also run at cleanup.
func (p *Portal) Stop() { p.stop() }

// Instance starts a second portal over the same database and sandbox, as another process
// on the same PostgreSQL would run: its own auth service, upload runner, handler and
// port (and, with Options.Postgres, its own connection pool); the same session keys and
// clock. It stops at the test's cleanup.
func (p *Portal) Instance(t testing.TB) *Portal {
	t.Helper()
	q := &Portal{DB: p.DB, Sandbox: p.Sandbox, SandboxURL: p.SandboxURL, Billing: p.Billing, Config: p.Config, clock: p.clock, opts: p.opts,
		log: p.log, dbURL: p.dbURL}
	if p.opts.Metrics {
		q.Metrics = newMetrics(t, q.Config, q.clock, q.log)
	}
	if q.dbURL != "" {
		q.DB = storetest.Open(t, q.dbURL) // its own pool, as another process has
	}
	q.serve(t, nil)
	return q
}

// SyncLedger runs an incremental sync of the ledger now and waits for it (a first fill
// too, when it is still to be done), on this instance: what the every-minute sync does,
// for a test that changed the sandbox behind the portal's back. It fails the test when
// the sync fails; another instance holding the sync's lease is not a failure (it syncs).
func (p *Portal) SyncLedger(t testing.TB) {
	t.Helper()
	if _, err := p.App.Sync.RunIncremental(t.Context()); err != nil && !errors.Is(err, ledger.ErrLeaseHeld) {
		t.Fatalf("sync the ledger: %v", err)
	}
}

// AwaitCallbacks waits until the sandbox has delivered (or given up on) every payment
// callback it has to send: a bank payment made at the sandbox is then in the ledger.
func (p *Portal) AwaitCallbacks(t testing.TB) {
	t.Helper()
	deadline := time.After(15 * time.Second)
	for {
		pending := 0
		for _, cb := range p.Sandbox.Callbacks() {
			if cb.State == "pending" {
				pending++
			}
		}
		if pending == 0 {
			return
		}
		select {
		case <-deadline:
			t.Fatalf("%d payment callbacks still pending after 15s", pending)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// newMetrics builds an instance's metrics on the portal's clock.
func newMetrics(t testing.TB, cfg config.Config, clk *portalClock, log *slog.Logger) *metrics.Metrics {
	t.Helper()
	m, err := metrics.New(metrics.Config{Clock: clock.New(clk.now, cfg.Location), Log: log})
	if err != nil {
		t.Fatalf("metrics: %v", err)
	}
	return m
}

// sbNow keeps the client's daily password on the sandbox's clock, fixed or not.
func sbNow(sb *sandbox.Server) func() time.Time { return sb.Now }

// CreateUser adds an account with Password.
func (p *Portal) CreateUser(t testing.TB, username string, role auth.Role) store.User {
	t.Helper()
	u, err := p.Auth.CreateUser(context.Background(), auth.SystemActor, username, strings.ToUpper(username[:1])+username[1:]+" Staf", role, Password)
	if err != nil {
		t.Fatalf("create user %s: %v", username, err)
	}
	return u
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(b), "\n"))
	return len(b), nil
}

// Client is a cookie-keeping HTTP client that behaves like a browser without JavaScript.
type Client struct {
	t    testing.TB
	base string
	HTTP *http.Client
	// CSRF is the token of the last page read; Post sends it.
	CSRF string
}

// NewClient returns a client that does not follow redirects, so tests can see the 303s.
func (p *Portal) NewClient(t testing.TB) *Client {
	jar, _ := cookiejar.New(nil)
	return &Client{t: t, base: p.URL, HTTP: &http.Client{
		Jar:           jar,
		Timeout:       30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// Response is a read response with its document parsed.
type Response struct {
	*http.Response
	Body string
	Doc  *goquery.Document
}

// Do sends a request and reads the whole answer; it remembers the page's CSRF token.
func (c *Client) Do(req *http.Request) *Response {
	c.t.Helper()
	res, err := c.HTTP.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		c.t.Fatalf("read %s: %v", req.URL, err)
	}
	doc, _ := goquery.NewDocumentFromReader(strings.NewReader(string(b)))
	if tok, ok := doc.Find(`meta[name="csrf-token"]`).Attr("content"); ok && tok != "" {
		c.CSRF = tok
	}
	return &Response{Response: res, Body: string(b), Doc: doc}
}

// On returns a client for another instance (Portal.Instance) that shares this one's
// cookies and CSRF token: the same browser, reaching a different process.
func (c *Client) On(p *Portal) *Client {
	d := *c
	d.base = p.URL
	return &d
}

// Get fetches a path; headers are optional "Name", "value" pairs.
func (c *Client) Get(path string, headers ...string) *Response {
	c.t.Helper()
	req, err := http.NewRequest(http.MethodGet, c.base+path, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return c.Do(req)
}

// Post sends a form with the current CSRF token (unless the form sets csrf_token itself).
func (c *Client) Post(path string, form url.Values, headers ...string) *Response {
	c.t.Helper()
	if form == nil {
		form = url.Values{}
	}
	if _, ok := form["csrf_token"]; !ok {
		if c.CSRF == "" {
			c.Get("/login")
		}
		form.Set("csrf_token", c.CSRF)
	}
	req, err := http.NewRequest(http.MethodPost, c.base+path, strings.NewReader(form.Encode()))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return c.Do(req)
}

// Login signs in and fails the test unless the portal redirects away from the form.
func (c *Client) Login(username string) {
	c.t.Helper()
	c.Get("/login")
	res := c.Post("/login", url.Values{"username": {username}, "password": {Password}})
	if res.StatusCode != http.StatusSeeOther {
		c.t.Fatalf("login %s: status %d, body:\n%s", username, res.StatusCode, res.Body)
	}
	c.Get("/") // pick up the renewed session's CSRF token
}

// SignedIn returns a client signed in as username.
func (p *Portal) SignedIn(t testing.TB, username string) *Client {
	c := p.NewClient(t)
	c.Login(username)
	return c
}

// Path returns the absolute URL of path.
func (p *Portal) Path(path string) string {
	u, _ := url.JoinPath(p.URL, path)
	return u
}

// startMessages runs the message sandboxes and points the portal's configuration at them.
func (p *Portal) startMessages(t testing.TB, webhook string) {
	t.Helper()
	const token, phoneID, secret = "sandbox-token", "100000000000001", "sandbox-app-secret"
	p.WhatsApp = messagesandbox.NewCloudAPI(messagesandbox.Options{Token: token, PhoneNumberID: phoneID, AppSecret: secret,
		WebhookURL: webhook, StatusDelay: 5 * time.Millisecond, Logger: p.log})
	api := httptest.NewServer(p.WhatsApp)
	mailSB, err := messagesandbox.StartSMTP("127.0.0.1:0", messagesandbox.SMTPOptions{Logger: p.log})
	if err != nil {
		t.Fatalf("mail sandbox: %v", err)
	}
	p.Mail = mailSB
	t.Cleanup(func() {
		api.Close()
		p.WhatsApp.Close()
		mailSB.Close()
	})
	host, port, _ := net.SplitHostPort(mailSB.Addr())
	p.Config.WhatsApp = config.WhatsApp{URL: api.URL + "/v26.0", Token: token, PhoneID: phoneID, AppSecret: secret}
	p.Config.SMTP = config.SMTP{Host: host, Port: port, From: "Keuangan SMP Nusantara <keuangan@smp-nusantara.sch.id>"}
}
