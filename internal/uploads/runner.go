package uploads

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/changes"
	"github.com/sekolah/portal/internal/store"
)

// Job states. An upload is held (the same file was uploaded before: the person confirms),
// analysing, then ready (the preview) or invalid (the file cannot be used); committed it is
// queued, checking (the service is searched once more for rows that exist by now, and the
// chunks are made), sending, and at last done, partial (some rows refused or not sent) or
// failed. Discarded uploads keep their history line only.
const (
	StateHeld      = "held"
	StateAnalysing = "analysing"
	StateInvalid   = "invalid"
	StateReady     = "ready"
	StateQueued    = "queued"
	StateChecking  = "checking"
	StateSending   = "sending"
	StateDone      = "done"
	StatePartial   = "partial"
	StateFailed    = "failed"
	StateDiscarded = "discarded"
)

// Chunk states. A chunk is sent just before its call leaves; an answer makes it confirmed
// or failed; no answer (timeout, lost connection, the portal stopping) makes it unknown,
// and an unknown chunk is reconciled (its rows searched at the service) before anything
// is sent again. After a crash, a chunk still marked sent is treated as unknown.
const (
	ChunkPending   = "pending"
	ChunkSent      = "sent"
	ChunkConfirmed = "confirmed"
	ChunkFailed    = "failed"
	ChunkUnknown   = "unknown"
)

// Running reports whether a job in state s is in the runner's hands.
func Running(s string) bool {
	return s == StateQueued || s == StateChecking || s == StateSending
}

// Finished reports whether a committed job has ended.
func Finished(s string) bool { return s == StateDone || s == StatePartial || s == StateFailed }

// Errors the web layer turns into messages.
var (
	// ErrTooBig: the file is larger than Config.MaxBytes.
	ErrTooBig = errors.New("uploads: file too big")
	// ErrState: the job is not in a state that allows the step (committed twice, ...).
	ErrState = errors.New("uploads: not possible in the job's state")
	// ErrFileGone: the file was cleaned up; only the history remains.
	ErrFileGone = errors.New("uploads: file no longer kept")
	// ErrStopped: the runner is not running (not started yet, or stopping).
	ErrStopped = errors.New("uploads: the runner is not running")
)

// Runner receives files, analyses them and runs the jobs that send their rows, in the
// background of the portal process. Jobs run one at a time, oldest commit first (so two
// jobs never race on the same rows); within a job a few chunks are in flight at once.
// A job runs only under its lease (see Config.LeaseTTL), so portal instances sharing
// the database never send the same job's chunks at once.
type Runner struct {
	cfg    Config
	owner  string // this runner's lease owner id
	db     *store.DB
	client *billing.Client
	writer *changes.Writer
	log    *slog.Logger
	now    func() time.Time

	mu      sync.Mutex
	started bool
	stopped bool
	ctx     context.Context // cancelled to abort calls in flight (hard stop)
	cancel  context.CancelFunc
	quit    chan struct{} // closed to stop taking new work (graceful stop)
	wake    chan struct{}
	wg      sync.WaitGroup
	// analyses are the analyses this instance runs (or waits to), each with the function
	// that stops it.
	analyses map[string]context.CancelFunc
	// slots bounds the analyses running at once: each reads a whole file at full speed.
	// Error workbooks are made under it too.
	slots chan struct{}
	// books makes each error workbook once however many ask for it at the same moment.
	books singleflight.Group
}

// NewRunner makes a runner; Start sets it going.
func NewRunner(cfg Config, db *store.DB, client *billing.Client, writer *changes.Writer, log *slog.Logger) *Runner {
	cfg.defaults()
	if cfg.Clock.IsZero() {
		panic("uploads: NewRunner without a clock (Config.Clock: internal/app hands every worker the portal's)")
	}
	if log == nil {
		log = slog.Default()
	}
	return &Runner{cfg: cfg, owner: store.NewID(), db: db, client: client, writer: writer, log: log, now: cfg.Clock.Now,
		quit: make(chan struct{}), wake: make(chan struct{}, 1), analyses: map[string]context.CancelFunc{}, slots: make(chan struct{}, 2)}
}

// ID is the runner's lease owner id: a job whose UploadJob.LeaseOwner is this runner's
// is run (or analysed) here.
func (r *Runner) ID() string { return r.owner }

// Start resumes what a previous process left (analyses and jobs) and starts the job loop
// and the clean-up of old files. It returns at once.
func (r *Runner) Start(ctx context.Context) error {
	r.mu.Lock()
	if r.started {
		r.mu.Unlock()
		return errors.New("uploads: runner already started")
	}
	r.started = true
	r.ctx, r.cancel = context.WithCancel(context.WithoutCancel(ctx))
	r.mu.Unlock()
	if d := r.cfg.Limits.TempDir; d != "" {
		if err := os.MkdirAll(d, 0o750); err != nil {
			return fmt.Errorf("uploads: create temporary directory: %w", err)
		}
	}
	if err := r.moveLegacySheets(ctx); err != nil {
		return err
	}
	pending, err := r.db.UploadJobsInStates(ctx, StateAnalysing)
	if err != nil {
		return err
	}
	for _, j := range pending {
		r.startAnalysis(j.ID)
	}
	r.wg.Add(3)
	go r.loop()
	go r.janitor()
	go r.watchAnalyses()
	return nil
}

// Stop stops taking new work and waits for the calls in flight to end; when ctx ends
// first, it aborts them (their chunks become unknown and are reconciled at the next
// start). Jobs not finished resume at the next Start, here or in another instance: their
// leases are released.
func (r *Runner) Stop(ctx context.Context) error {
	r.mu.Lock()
	if !r.started || r.stopped {
		r.mu.Unlock()
		return nil
	}
	r.stopped = true
	close(r.quit)
	r.mu.Unlock()
	done := make(chan struct{})
	go func() { r.wg.Wait(); close(done) }()
	select {
	case <-done:
		r.cancel()
		return nil
	case <-ctx.Done():
		r.cancel()
		<-done
		return ctx.Err()
	}
}

func (r *Runner) quitting() bool {
	select {
	case <-r.quit:
		return true
	default:
		return false
	}
}

func (r *Runner) wakeUp() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// sleep waits d, or less when the runner stops; it reports whether the wait completed.
func (r *Runner) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.quit:
		return false
	case <-r.ctx.Done():
		return false
	}
}

func (r *Runner) backoff(attempt int) time.Duration {
	d := r.cfg.RetryMax
	if attempt < 20 {
		d = min(r.cfg.RetryBase<<attempt, r.cfg.RetryMax)
	}
	return d/2 + rand.N(d/2+1)
}

func isNotFound(err error) bool { return errors.Is(err, store.ErrNotFound) }
