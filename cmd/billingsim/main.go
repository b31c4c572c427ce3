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
	addr     string
	username string
	password string
	tz       string
	accounts string
	db       string
	now      string
	demo     bool
}

func parseFlags(args []string) (config, error) {
	var c config
	fs := flag.NewFlagSet("billingsim", flag.ContinueOnError)
	fs.StringVar(&c.addr, "addr", "127.0.0.1:8081", "listen address")
	fs.StringVar(&c.username, "username", "sandbox", "username clients authenticate with")
	fs.StringVar(&c.password, "password", "sandbox", "issued password (clients send its daily hash)")
	fs.StringVar(&c.tz, "tz", "Asia/Jakarta", "service time zone")
	fs.StringVar(&c.accounts, "accounts", "SPP,BCA,MANDIRI", "comma-separated account codes")
	fs.StringVar(&c.db, "db", "", "SQLite file (empty: in memory)")
	fs.StringVar(&c.now, "now", "", "fixed clock, RFC 3339 (empty: real time)")
	fs.BoolVar(&c.demo, "demo", false, "load a realistic demo school into an empty store")
	return c, fs.Parse(args)
}

func run(args []string, log *slog.Logger) error {
	c, err := parseFlags(args)
	if err != nil {
		return err
	}
	loc, err := time.LoadLocation(c.tz)
	if err != nil {
		return fmt.Errorf("-tz %q: %w", c.tz, err)
	}
	var now time.Time
	if c.now != "" {
		if now, err = time.Parse(time.RFC3339, c.now); err != nil {
			return fmt.Errorf("-now: %w", err)
		}
	}
	started := time.Now()
	sb, err := sandbox.New(sandbox.Options{
		Username: c.username,
		Password: c.password,
		Location: loc,
		Accounts: strings.Split(c.accounts, ","),
		DBPath:   c.db,
		Now:      now,
		Demo:     c.demo,
		Logger:   log,
	})
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
	fmt.Printf("  accounts %s; sandbox routes: /_sandbox/clock, /_sandbox/reminders, /_sandbox/faults\n", strings.Join(sb.Accounts(), ","))

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
