// Command billingsim runs the sandbox billing service over HTTP, for trying
// the portal (or any client of the contract) without the real upstream.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/sekolah/portal/internal/sandbox"
)

func main() {
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := run(os.Args[1:], log); err != nil {
		log.Error("billingsim stopped", "err", err)
		os.Exit(1)
	}
}

// config is the parsed command line.
type config struct {
	addr         string
	username     string
	password     string
	tz           string
	accounts     string
	db           string
	now          string
	demo         bool
	callbackURL  string
	maxLimit     int
	capSilently  bool
	zoneless     bool
	bankPayments time.Duration
}

func parseFlags(args []string) (config, error) {
	var c config
	fs := flag.NewFlagSet("billingsim", flag.ContinueOnError)
	fs.StringVar(&c.addr, "addr", "127.0.0.1:8081", "listen address")
	fs.StringVar(&c.username, "username", "sandbox", "username clients authenticate with (the biller code)")
	fs.StringVar(&c.password, "password", "sandbox", "issued password (clients send its daily hash)")
	fs.StringVar(&c.tz, "tz", "Asia/Jakarta", "service time zone")
	fs.StringVar(&c.accounts, "accounts", "SPP,BCA,MANDIRI", "comma-separated account codes")
	fs.StringVar(&c.db, "db", "", "SQLite file (empty: in memory)")
	fs.StringVar(&c.now, "now", "", "fixed clock, RFC 3339 (empty: real time)")
	fs.BoolVar(&c.demo, "demo", false, "load a realistic demo school into an empty store")
	fs.StringVar(&c.callbackURL, "callback-url", "", "where payment callbacks go (empty: they are only listed at /_sandbox/callbacks)")
	fs.IntVar(&c.maxLimit, "max-limit", 1000, "largest page of the component searches (1 to 1000)")
	fs.BoolVar(&c.capSilently, "cap-silently", false, "answer a larger limit with at most -max-limit records instead of a 400, as a real service may")
	fs.BoolVar(&c.zoneless, "zoneless", false, "write timestamps without a zone, in service time")
	fs.DurationVar(&c.bankPayments, "bank-payments", 0, "with -demo: parents pay at banks about this often, each payment sending its callback (0: never)")
	return c, fs.Parse(args)
}

// options turns the flags into the sandbox's options, checking each.
func (c config) options(log *slog.Logger) (sandbox.Options, error) {
	loc, err := time.LoadLocation(c.tz)
	if err != nil {
		return sandbox.Options{}, fmt.Errorf("-tz %q: %w", c.tz, err)
	}
	var now time.Time
	if c.now != "" {
		if now, err = time.Parse(time.RFC3339, c.now); err != nil {
			return sandbox.Options{}, fmt.Errorf("-now: %w", err)
		}
	}
	if c.maxLimit < 1 || c.maxLimit > 1000 {
		return sandbox.Options{}, fmt.Errorf("-max-limit %d: must be from 1 to 1000", c.maxLimit)
	}
	if c.bankPayments < 0 {
		return sandbox.Options{}, fmt.Errorf("-bank-payments %s: must not be negative", c.bankPayments)
	}
	if c.callbackURL != "" {
		u, err := url.Parse(c.callbackURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return sandbox.Options{}, errors.New("-callback-url: must be an http:// or https:// address")
		}
	}
	return sandbox.Options{
		Username:     c.username,
		Password:     c.password,
		Location:     loc,
		Accounts:     strings.Split(c.accounts, ","),
		DBPath:       c.db,
		Now:          now,
		Demo:         c.demo,
		Logger:       log,
		CallbackURL:  c.callbackURL,
		MaxLimit:     c.maxLimit,
		CapSilently:  c.capSilently,
		Zoneless:     c.zoneless,
		BankPayments: c.bankPayments,
	}, nil
}

func run(args []string, log *slog.Logger) error {
	c, err := parseFlags(args)
	if err != nil {
		return err
	}
	opts, err := c.options(log)
	if err != nil {
		return err
	}
	loc := opts.Location
	started := time.Now()
	sb, err := sandbox.New(opts)
	if err != nil {
		return err
	}
	defer sb.Close()
	if c.demo {
		log.Info("demo school ready", "took", time.Since(started).Round(time.Millisecond))
	}

	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	srv := &http.Server{
		Handler:           logRequests(log, sb),
		ReadHeaderTimeout: 10 * time.Second,
	}
	// The URL and the way to authenticate; never the password itself.
	fmt.Printf("billingsim listening on http://%s\n", ln.Addr())
	fmt.Printf("  username %q; password: hex(sha256(hex(sha256(<issued password>)) + YYYYMMDD)), date in %s (today %s)\n",
		c.username, loc, sb.Now().In(loc).Format("20060102"))
	fmt.Printf("  accounts %s; sandbox routes: /_sandbox/clock, /_sandbox/reminders, /_sandbox/faults, /_sandbox/bank-payment, /_sandbox/callbacks\n", strings.Join(sb.Accounts(), ","))
	if c.callbackURL != "" {
		fmt.Printf("  payment callbacks go to %s\n", c.callbackURL)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}

// statusRecorder remembers the status a handler wrote.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

// logRequests logs one line per request: method, path, status, duration.
// Headers (Authorization) and the query's values beyond the path are not logged.
func logRequests(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		log.Info("request", "method", r.Method, "path", r.URL.Path, "status", rec.status, "duration", time.Since(start).Round(time.Microsecond))
	})
}
