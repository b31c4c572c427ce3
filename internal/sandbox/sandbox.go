// Package sandbox is an in-process implementation of the school billing service,
// contract version 2 (docs/upstream.md): the portal uses it when no real
// upstream is configured, and every test talks to it over real HTTP.
//
// Besides the contract's endpoints it sends signed payment callbacks for
// money paid "at a bank" (POST /_sandbox/bank-payment, or on its own with
// Options.BankPayments), and it can behave like a looser real service:
// capping pages silently (Options.CapSilently) and writing timestamps
// without a zone (Options.Zoneless).
package sandbox

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sekolah/portal/internal/clock"
)

// Options configures a sandbox.
type Options struct {
	Username      string            // default "sandbox"
	Password      string            // issued password, default "sandbox"
	DisabledUsers map[string]string // username -> issued password; valid credentials of these get 403
	Location      *time.Location    // service time zone, default Asia/Jakarta
	Accounts      []string          // account codes, default SPP,BCA,MANDIRI
	DBPath        string            // SQLite file; "" = in memory
	Now           time.Time         // fixed clock when non-zero; zero = real time
	Demo          bool              // load the demo school (only when the store is empty)
	Seed          uint64            // seed of the fault-injection RNG (0 = fixed default), so tests are repeatable
	HangLimit     time.Duration     // how long a "timeout" fault hangs at most (default 2m); the hang also ends when the client goes away
	Logger        *slog.Logger

	// MaxLimit is the largest page of the component searches (default and at most 1000).
	MaxLimit int
	// CapSilently answers a larger limit with at most MaxLimit records (the
	// student list: at most 1500) instead of a 400, as a real service may.
	CapSilently bool
	// Zoneless writes timestamps without a zone, as wall-clock service time.
	Zoneless bool

	// CallbackURL receives the payment callbacks; empty: callbacks are only listed.
	CallbackURL string
	// CallbackRetries are the pauses before each new attempt of an undelivered
	// callback (default 1s, 5s, 30s, 2m, 10m); after the last it is given up.
	// Tests shorten them; the schedule runs on real time, not the sandbox clock.
	CallbackRetries []time.Duration
	// CallbackTimeout bounds one delivery attempt (default 10s).
	CallbackTimeout time.Duration
	// CallbackClient sends the callbacks (default: a plain http.Client).
	CallbackClient *http.Client
	// BillerName is the school's name in callbacks (default "Sekolah Sandbox").
	BillerName string
	// BankPayments, when positive, makes parents pay one payable component at
	// a bank about that often (jittered), each payment sending its callback.
	BankPayments time.Duration
}

// DefaultCallbackRetries is the contract's retry schedule of a callback.
var DefaultCallbackRetries = []time.Duration{time.Second, 5 * time.Second, 30 * time.Second, 2 * time.Minute, 10 * time.Minute}

// Server is the sandbox billing service; it implements http.Handler.
type Server struct {
	username string
	password string
	disabled map[string]string
	loc      *time.Location
	accounts []string
	log      *slog.Logger
	store    *store
	mux      *http.ServeMux

	clockMu sync.RWMutex
	fixed   time.Time // zero: real time
	// wall is the real clock, through internal/clock: the service's clock when none is
	// fixed, and always the callbacks' retry schedule (timers run on real time).
	wall clock.Clock

	// remindedDay is the service date (YYYYMMDD) whose reminders have been
	// evaluated; a request on another date evaluates them once.
	remindedDay atomic.Int64
	remindMu    sync.Mutex

	faultMu   sync.Mutex
	faults    Faults
	rng       *rand.Rand
	hangLimit time.Duration

	stamps      stamps
	maxLimit    int
	capSilently bool
	billerName  string
	callbacks   *callbackSender

	// bg is cancelled by Close; every goroutine the server starts is in wg,
	// added under bgMu so that none starts once Close has begun.
	bg        context.Context
	stop      context.CancelFunc
	bgMu      sync.Mutex
	wg        sync.WaitGroup
	closeOnce sync.Once
	closeErr  error
}

// defaultSeed makes fault injection repeatable when no seed is given.
const defaultSeed = 0x5eed_b111

// New opens the store, loads the demo school when asked, and returns the handler.
func New(opts Options) (*Server, error) {
	s := &Server{
		username:  cmp.Or(opts.Username, "sandbox"),
		password:  cmp.Or(opts.Password, "sandbox"),
		disabled:  opts.DisabledUsers,
		loc:       opts.Location,
		log:       opts.Logger,
		fixed:     opts.Now,
		hangLimit: opts.HangLimit,
	}
	if s.loc == nil {
		loc, err := time.LoadLocation("Asia/Jakarta")
		if err != nil {
			// Systems without tzdata still get the right offset: Jakarta has no DST.
			loc = time.FixedZone("WIB", 7*60*60)
		}
		s.loc = loc
	}
	s.wall = clock.System(s.loc)
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if s.hangLimit <= 0 {
		s.hangLimit = 2 * time.Minute
	}
	s.stamps = stamps{loc: s.loc, zoneless: opts.Zoneless}
	s.maxLimit = maxLimit
	if opts.MaxLimit > 0 && opts.MaxLimit < maxLimit {
		s.maxLimit = opts.MaxLimit
	}
	s.capSilently = opts.CapSilently
	s.billerName = cmp.Or(opts.BillerName, "Sekolah Sandbox")
	for _, a := range opts.Accounts {
		if a = strings.TrimSpace(a); a != "" && !slices.Contains(s.accounts, a) {
			s.accounts = append(s.accounts, a)
		}
	}
	if len(s.accounts) == 0 {
		s.accounts = []string{"SPP", "BCA", "MANDIRI"}
	}
	seed := opts.Seed
	if seed == 0 {
		seed = defaultSeed
	}
	s.rng = rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))

	st, err := openStore(opts.DBPath)
	if err != nil {
		return nil, err
	}
	s.store = st
	if opts.Demo {
		empty, err := st.empty(context.Background())
		if err == nil && empty {
			err = s.loadDemo(context.Background())
		}
		if err != nil {
			st.close()
			return nil, fmt.Errorf("sandbox: load demo school: %w", err)
		}
	}
	s.mux = s.routes()
	s.bg, s.stop = context.WithCancel(context.Background())
	s.callbacks = newCallbackSender(s, opts)
	if opts.BankPayments > 0 {
		s.background(func(ctx context.Context) { s.bankPayments(ctx, opts.BankPayments) })
	}
	return s, nil
}

// Close stops the bank payments and the callback retries (an attempt in
// flight is abandoned, its callback stays pending in the list), waits for
// their goroutines, then releases the store. It may be called more than once.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.bgMu.Lock()
		s.stop()
		s.bgMu.Unlock()
		s.wg.Wait()
		s.closeErr = s.store.close()
	})
	return s.closeErr
}

// SaveTo writes the service's stored state (students, components, payments, reminders)
// to a new SQLite file at path, which Options.DBPath opens later as it was: a test
// harness starts many sandboxes from one generated demo school this way. Callbacks
// waiting to be delivered are not stored state and are not saved.
func (s *Server) SaveTo(ctx context.Context, path string) error {
	return s.store.saveTo(ctx, path)
}

// Accounts returns the configured account codes.
func (s *Server) Accounts() []string { return slices.Clone(s.accounts) }

// Location returns the service time zone.
func (s *Server) Location() *time.Location { return s.loc }

// Now returns the service clock: the fixed time if one is set, else real time.
func (s *Server) Now() time.Time {
	s.clockMu.RLock()
	t := s.fixed
	s.clockMu.RUnlock()
	if t.IsZero() {
		return s.wall.Now()
	}
	return t
}

// SetClock fixes the clock and evaluates reminders (same as POST /_sandbox/clock).
// The zero time returns the clock to real time.
func (s *Server) SetClock(t time.Time) {
	if err := s.setClock(context.Background(), t); err != nil {
		s.log.Error("sandbox: evaluate reminders", "err", err)
	}
}

func (s *Server) setClock(ctx context.Context, t time.Time) error {
	s.clockMu.Lock()
	s.fixed = t
	s.clockMu.Unlock()
	return s.evaluateReminders(ctx, true)
}

// today is the service's current date as YYYYMMDD.
func (s *Server) today() int {
	return dayOf(s.Now().In(s.loc))
}

// DailyPassword is the password a client sends on the given day:
// hex(sha256(hex(sha256(issued)) + YYYYMMDD)), the date taken in loc.
func DailyPassword(issued string, day time.Time, loc *time.Location) string {
	if loc == nil {
		loc = time.UTC
	}
	inner := sha256.Sum256([]byte(issued))
	outer := sha256.Sum256([]byte(hex.EncodeToString(inner[:]) + day.In(loc).Format("20060102")))
	return hex.EncodeToString(outer[:])
}
