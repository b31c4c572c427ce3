// Command portal runs the school billing portal.
//
//	portal                      serve (the default)
//	portal user list            list staff accounts
//	portal user add NAME ROLE   add an account (password read from stdin, or generated)
//	portal user passwd NAME     set a new password (read from stdin, or generated)
//
// Configuration comes from PORTAL_* environment variables; see README.md.
package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
	_ "time/tzdata" // the zone database travels in the binary: the container image has none

	"github.com/sekolah/portal/internal/app"
	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/boundlog"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/config"
	"github.com/sekolah/portal/internal/metrics"
	"github.com/sekolah/portal/internal/sandbox"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/web"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "portal:", err)
		os.Exit(1)
	}
}

// run is the whole program; it returns when ctx ends (SIGINT/SIGTERM) after a graceful
// shutdown, or on a start-up error that names what to fix.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	// Every value of a line bounded: a request's path, query or typed text is the sender's.
	log := slog.New(boundlog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo})))
	cfg, err := config.Load(getenv)
	if err != nil {
		return fmt.Errorf("invalid configuration:\n%w", err)
	}

	// The portal's one clock: the system's, in the school's zone (PORTAL_TZ). The user
	// commands use it as the served portal does (internal/app reads the same).
	clk := clock.System(cfg.Location)
	db, err := store.Open(ctx, cfg.DatabaseURL, clk.Func())
	if err != nil {
		return fmt.Errorf("open database (PORTAL_DATABASE_URL): %w", err)
	}
	defer db.Close()
	authSvc := auth.NewService(db, clk)
	authSvc.Logger = log
	authSvc.SessionIdle = cfg.SessionIdle

	if len(args) > 0 {
		switch args[0] {
		case "user":
			return userCommand(ctx, authSvc, args[1:], stdin, stdout)
		case "serve":
		default:
			return fmt.Errorf("unknown command %q (want serve or user)", args[0])
		}
	}
	setMemoryLimit(log, os.DirFS("/"))
	return serve(ctx, cfg, db, authSvc, log, stdout)
}

func serve(ctx context.Context, cfg config.Config, db *store.DB, authSvc *auth.Service, log *slog.Logger, stdout io.Writer) error {
	created, generated, err := authSvc.EnsureBootstrapAdmin(ctx, cfg.AdminPassword)
	switch {
	case errors.Is(err, auth.ErrAdminNameTaken):
		return errors.New(`no admin account exists, and "admin" is the username of an account of another role: ` +
			"make an admin with `portal user add USERNAME admin`, then start again")
	case err != nil:
		return fmt.Errorf("bootstrap admin (PORTAL_ADMIN_PASSWORD): %w", err)
	case created && generated == "":
		log.Info("no admin account existed: created admin with the password PORTAL_ADMIN_PASSWORD gives")
	case created:
		log.Info("no admin account existed: created admin with a generated password")
	case cfg.AdminPassword != "":
		// Said, not silently ignored: the variable only ever sets the first admin's password.
		log.Warn("PORTAL_ADMIN_PASSWORD is set but an admin account exists already, so it is not used; " +
			"change a password with `portal user passwd USERNAME`, and unset the variable")
	}
	if err := giveAdminPassword(cfg, log, stdout, created, generated); err != nil {
		return err
	}
	keys, linkKey, err := sessionKeys(ctx, cfg, db)
	if err != nil {
		return err
	}

	// Listening comes first: the embedded sandbox sends its payment callbacks here.
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s (PORTAL_ADDR): %w", cfg.Addr, err)
	}
	defer ln.Close()
	// The metrics' own listener, when PORTAL_METRICS_ADDR asks for one: taken now, so a
	// port in use stops the start naming the variable.
	m, metricsLn, err := listenMetrics(cfg, authSvc.Clock, log)
	if err != nil {
		return err
	}
	if metricsLn != nil {
		defer metricsLn.Close()
	}

	billingCfg := billing.Config{
		BaseURL: cfg.UpstreamURL, Username: cfg.UpstreamUsername, Password: cfg.UpstreamPassword,
		Location: cfg.Location, Timeout: cfg.UpstreamTimeout, Deadline: cfg.UpstreamDeadline, Logger: log,
		Now: authSvc.Clock.Func(),
	}
	if m != nil {
		billingCfg.Observe = m.BillingCall // every call to the service, counted by endpoint
	}
	if cfg.Sandbox() {
		url, closeSandbox, err := startSandbox(cfg, callbackURL(ln.Addr()), log)
		if err != nil {
			return err
		}
		defer closeSandbox()
		billingCfg.BaseURL, billingCfg.Username, billingCfg.Password = url, "portal", sandboxPassword
	}
	// Without a WhatsApp account or a mail server, the demo's messages go to embedded
	// sandboxes (the Settings → Messages page shows what they "sent").
	sandboxed, closeMessages, err := startMessageSandboxes(&cfg, strings.Replace(callbackURL(ln.Addr()), "/hooks/payments", "/hooks/whatsapp", 1), log)
	if err != nil {
		return err
	}
	defer closeMessages()
	client, err := billing.New(billingCfg)
	if err != nil {
		return fmt.Errorf("billing client: %w", err)
	}

	// Every service and background worker is built once here and handed to the routes.
	a, err := app.New(ctx, app.Options{Config: cfg, DB: db, Billing: client, Logger: log, Auth: authSvc,
		Now: authSvc.Clock.Func(), ParentLinkKey: linkKey, MessageSandboxes: sandboxed, Metrics: m})
	if err != nil {
		return fmt.Errorf("build the portal (PORTAL_DATABASE_URL): %w", err)
	}
	if err := a.Start(ctx); err != nil {
		return fmt.Errorf("start the portal's workers (PORTAL_DATA_DIR): %w", err)
	}
	// The workers stop before the database closes (deferred earlier, so it runs later):
	// nothing of theirs touches it after.
	defer func() {
		stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
		defer cancel()
		if err := a.Stop(stopCtx); err != nil {
			log.Warn("background work cut off at shutdown; upload jobs resume at the next start", "err", err)
		}
	}()
	if cfg.Sandbox() {
		// The embedded sandbox's demo school is made ready to browse.
		demoCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
		if err := a.PrepareDemo(demoCtx); err != nil {
			log.Warn("prepare the demo school", "err", err)
		}
		cancel()
	}

	handler := web.New(web.Deps{App: a, SessionKeys: keys})
	srv := &http.Server{
		Addr:              cfg.Addr,
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       5 * time.Minute, // 20 MB sheets over a school's slow uplink
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	signIn := "sign in as admin with the password printed above"
	switch {
	case !created:
		signIn = "sign in with your staff account"
	case generated == "":
		signIn = "sign in as admin with PORTAL_ADMIN_PASSWORD"
	case !isTerminal(stdout):
		signIn = "sign in as admin with the password in " + filepath.Join(cfg.DataDir, adminPasswordFile)
	}
	log.Info("portal ready: open http://"+ln.Addr().String()+" and "+signIn, "upstream", cfg.UpstreamEnv)

	errc := make(chan error, 2)
	go func() { errc <- srv.Serve(ln) }()
	var metricsSrv *http.Server
	if metricsLn != nil {
		metricsSrv = serveMetrics(m, metricsLn, log, errc)
		log.Info("metrics at http://" + metricsLn.Addr().String() + metrics.Path)
	}
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// The pages first; the metrics after them (a scrape meanwhile still sees the state),
	// both before the workers stop and the database closes (deferred above).
	err = srv.Shutdown(shutdownCtx)
	if metricsSrv != nil {
		err = errors.Join(err, metricsSrv.Shutdown(shutdownCtx))
	}
	if err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}

// listenMetrics builds the metrics and takes their listener when PORTAL_METRICS_ADDR is
// set; nothing (all nil) when it is off.
func listenMetrics(cfg config.Config, clk clock.Clock, log *slog.Logger) (*metrics.Metrics, net.Listener, error) {
	if cfg.MetricsAddr == "" {
		return nil, nil, nil
	}
	m, err := metrics.New(metrics.Config{Clock: clk, Log: log})
	if err != nil {
		return nil, nil, err
	}
	ln, err := net.Listen("tcp", cfg.MetricsAddr)
	if err != nil {
		return nil, nil, fmt.Errorf("listen on %s (PORTAL_METRICS_ADDR): %w", cfg.MetricsAddr, err)
	}
	return m, ln, nil
}

// serveMetrics serves /metrics on ln, its own listener, until it is shut down; a failure
// to serve goes to errc, as the pages' does.
func serveMetrics(m *metrics.Metrics, ln net.Listener, log *slog.Logger, errc chan<- error) *http.Server {
	srv := &http.Server{
		Handler:           m.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	go func() {
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			errc <- fmt.Errorf("metrics (PORTAL_METRICS_ADDR): %w", err)
		}
	}()
	return srv
}

// sandboxPassword is the embedded sandbox's issued password. It never leaves the process:
// the sandbox listens on loopback only and the browser never talks to it.
var sandboxPassword = rand.Text()

// callbackURL is where the embedded sandbox sends its payment callbacks: this portal's
// own route, on the address it listens on (loopback when it listens on every address).
func callbackURL(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return ""
	}
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + "/hooks/payments"
}

// startSandbox runs the embedded billing sandbox with its demo school on a loopback port,
// keeping its data next to the portal's so payments made in the demo survive restarts.
// Parents of the demo school pay at banks every PORTAL_DEMO_BANK_PAYMENTS, and each
// payment's callback comes to callback, so a dashboard shows money arriving.
func startSandbox(cfg config.Config, callback string, log *slog.Logger) (url string, closeFn func(), err error) {
	if err := os.MkdirAll(cfg.DataDir, 0o750); err != nil {
		return "", nil, fmt.Errorf("create data directory (PORTAL_DATA_DIR): %w", err)
	}
	sb, err := sandbox.New(sandbox.Options{
		Username: "portal", Password: sandboxPassword, Location: cfg.Location, Accounts: cfg.AccountCodes,
		DBPath: filepath.Join(cfg.DataDir, "sandbox.db"), Demo: true, Logger: log.With("component", "sandbox"),
		CallbackURL: callback, BankPayments: cfg.BankPayments,
	})
	if err != nil {
		return "", nil, fmt.Errorf("start embedded sandbox: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		sb.Close()
		return "", nil, fmt.Errorf("start embedded sandbox: %w", err)
	}
	srv := &http.Server{Handler: sb, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("embedded sandbox stopped", "err", err)
		}
	}()
	return "http://" + ln.Addr().String(), func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		sb.Close()
	}, nil
}

// sessionKeys derives the cookie keys from PORTAL_SESSION_KEY or, when unset, from a
// secret generated once and kept in the database, so restarts (and other instances on
// the same database) keep people signed in; and from the same secret the key that signs
// the parent page links.
func sessionKeys(ctx context.Context, cfg config.Config, db *store.DB) ([2][]byte, []byte, error) {
	secret := cfg.SessionKey
	if secret == "" {
		b := make([]byte, 32)
		if _, err := rand.Read(b); err != nil {
			return [2][]byte{}, nil, err
		}
		stored, err := db.EnsureSetting(ctx, "session_key", hex.EncodeToString(b))
		if err != nil {
			return [2][]byte{}, nil, fmt.Errorf("session key: %w", err)
		}
		secret = stored
	}
	hash := sha256.Sum256([]byte("portal session authentication\x00" + secret))
	block := sha256.Sum256([]byte("portal session encryption\x00" + secret))
	links := sha256.Sum256([]byte("portal parent page links\x00" + secret))
	return [2][]byte{hash[:], block[:]}, links[:], nil
}
