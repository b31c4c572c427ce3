package uploads

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/changes"
	"github.com/sekolah/portal/internal/corrections"
	"github.com/sekolah/portal/internal/jobs"
	"github.com/sekolah/portal/internal/store"
)

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
// jobs never race on the same rows), under their lease in the database (internal/jobs:
// portal instances sharing the database never send the same job's chunks at once); within
// a job a few chunks are in flight at once.
type Runner struct {
	cfg    Config
	db     *store.DB
	client *billing.Client
	writer *changes.Writer
	log    *slog.Logger
	// steps are the correction steps a sheet's changes of what exists are sent through.
	steps corrections.Steps

	// jobs is the worker, its job loop and the engine the jobs are sent with.
	jobs *jobs.Runner

	mu sync.Mutex
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
	cfg.Clock.Zone() // the zero Clock panics here, not in the job loop
	if log == nil {
		log = slog.Default()
	}
	r := &Runner{cfg: cfg, db: db, client: client, writer: writer, log: log,
		steps:    corrections.Steps{Writer: writer, Clock: cfg.Clock},
		analyses: map[string]context.CancelFunc{}, slots: make(chan struct{}, 2)}
	r.jobs = jobs.NewRunner(jobs.RunnerConfig{
		Engine: jobs.Config{Concurrency: cfg.Concurrency, MaxAttempts: cfg.MaxAttempts, RetryBase: cfg.RetryBase,
			RetryMax: cfg.RetryMax, WaitFor: cfg.WaitFor, WaitMax: cfg.WaitMax, Settle: cfg.Settle},
		Classify: jobs.BillingFault, Clock: cfg.Clock, Log: log,
		Leases: db.JobLeases(store.UploadJobsTable), Owner: store.NewID(), LeaseTTL: cfg.LeaseTTL, LeaseRenew: cfg.LeaseRenew,
		// Ordered: a job committed later waits behind the oldest even while another
		// instance sends it, as it would in one instance, so two jobs never race on the
		// same rows.
		Ordered: true, Next: r.next, Run: r.run})
	return r
}

// ID is the runner's lease owner id: a job whose UploadJob.LeaseOwner is this runner's
// is run (or analysed) here.
func (r *Runner) ID() string { return r.jobs.Lease.Owner }

func (r *Runner) now() time.Time { return r.cfg.Clock.Now() }

// Start resumes what a previous process left (analyses and jobs) and starts the job loop
// and the clean-up of old files. It returns at once.
func (r *Runner) Start(ctx context.Context) error {
	// The worker first, its job loop last: a job committed before the sheets moved into
	// the database must find its sheet there.
	if err := r.jobs.Worker.Start(ctx); err != nil {
		return fmt.Errorf("uploads: %w", err)
	}
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
	r.jobs.Go(r.jobs.Queue.Loop)
	r.jobs.Go(r.janitor)
	r.jobs.Go(r.watchAnalyses)
	return nil
}

// Stop stops taking new work and waits for the calls in flight to end; when ctx ends
// first, it aborts them (their chunks become unknown and are read at the service at the
// next start). Jobs not finished resume at the next Start, here or in another instance:
// their leases are released.
func (r *Runner) Stop(ctx context.Context) error { return r.jobs.Stop(ctx) }

// next lists the committed jobs to run, oldest commit first.
func (r *Runner) next(ctx context.Context) ([]string, error) {
	list, err := r.db.UploadJobsInStates(ctx, StateQueued, StateChecking, StateSending)
	ids := make([]string, len(list))
	for i, j := range list {
		ids[i] = j.ID
	}
	return ids, err
}

func isNotFound(err error) bool { return errors.Is(err, store.ErrNotFound) }
