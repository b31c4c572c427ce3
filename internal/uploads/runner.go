package uploads

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/changes"
	"github.com/sekolah/portal/internal/i18n"
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
)

// Config is how the runner reads, keeps and sends uploads.
type Config struct {
	// Dir keeps the uploaded files (created when missing).
	Dir string
	// MaxBytes is the largest file accepted.
	MaxBytes int64
	// ChunkSize is the rows per batch call (default 200, at most 1000).
	ChunkSize int
	// Concurrency is the chunks in flight at once (default 3).
	Concurrency int
	// Accounts are the account codes the service knows.
	Accounts []string
	// Limits bound the reading of one file (default DefaultLimits(MaxBytes)).
	Limits Limits
	// LookupConcurrency bounds parallel NIS checks and searches (default 8).
	LookupConcurrency int
	// RetryBase and RetryMax shape the backoff between attempts of a chunk (defaults 500ms, 15s).
	RetryBase time.Duration
	RetryMax  time.Duration
	// MaxAttempts caps a chunk's sends and reconciliations in one run (default 10); a
	// chunk still unsent after that is left for a retry.
	MaxAttempts int
	// Settle is how long after a call without an answer the service is given before its
	// components are searched (default 15s, the client's timeout): a request still on its
	// way must land before we look.
	Settle time.Duration
	// Retention is how long files of finished or abandoned uploads are kept (default 14 days).
	Retention time.Duration
	// LeaseTTL is how long a job's lease lasts unless renewed (default 60s): several
	// portal instances may share the database, and one whose instance died is taken up
	// by another once its lease lapses.
	LeaseTTL time.Duration
	// LeaseRenew is how often a running job's lease is renewed, and how often a job
	// leased by another instance is looked at again (default 10s, below LeaseTTL).
	LeaseRenew time.Duration
}

func (c *Config) defaults() {
	if c.MaxBytes <= 0 {
		c.MaxBytes = 20 << 20
	}
	if c.ChunkSize <= 0 {
		c.ChunkSize = 200
	}
	c.ChunkSize = min(c.ChunkSize, billing.MaxLimit)
	if c.Concurrency <= 0 {
		c.Concurrency = 3
	}
	if c.Limits == (Limits{}) {
		c.Limits = DefaultLimits(c.MaxBytes)
	}
	if c.Limits.TempDir == "" && c.Dir != "" {
		c.Limits.TempDir = filepath.Join(c.Dir, "tmp")
	}
	if c.LookupConcurrency <= 0 {
		c.LookupConcurrency = 8
	}
	if c.RetryBase <= 0 {
		c.RetryBase = 500 * time.Millisecond
	}
	if c.RetryMax <= 0 {
		c.RetryMax = 15 * time.Second
	}
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = 10
	}
	if c.Settle <= 0 {
		c.Settle = billing.DefaultTimeout
	}
	if c.Retention <= 0 {
		c.Retention = 14 * 24 * time.Hour
	}
	if c.LeaseTTL <= 0 {
		c.LeaseTTL = time.Minute
	}
	if c.LeaseRenew <= 0 || c.LeaseRenew >= c.LeaseTTL {
		c.LeaseRenew = max(min(10*time.Second, c.LeaseTTL/3), time.Nanosecond) // a ticker needs > 0
	}
}

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

	mu       sync.Mutex
	started  bool
	stopped  bool
	ctx      context.Context // cancelled to abort calls in flight (hard stop)
	cancel   context.CancelFunc
	quit     chan struct{} // closed to stop taking new work (graceful stop)
	wake     chan struct{}
	wg       sync.WaitGroup
	analyses map[string]bool
	// slots bounds the analyses running at once: each reads a whole file at full speed.
	slots chan struct{}
}

// NewRunner makes a runner; Start sets it going.
func NewRunner(cfg Config, db *store.DB, client *billing.Client, writer *changes.Writer, log *slog.Logger) *Runner {
	cfg.defaults()
	if log == nil {
		log = slog.Default()
	}
	return &Runner{cfg: cfg, owner: store.NewID(), db: db, client: client, writer: writer, log: log, now: time.Now,
		quit: make(chan struct{}), wake: make(chan struct{}, 1), analyses: map[string]bool{}, slots: make(chan struct{}, 2)}
}

// Config returns the runner's settings after defaults.
func (r *Runner) Config() Config { return r.cfg }

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
	if err := os.MkdirAll(r.cfg.Limits.TempDir, 0o750); err != nil {
		return fmt.Errorf("uploads: create upload directory: %w", err)
	}
	pending, err := r.db.UploadJobsInStates(ctx, StateAnalysing)
	if err != nil {
		return err
	}
	for _, j := range pending {
		r.startAnalysis(j.ID)
	}
	r.wg.Add(2)
	go r.loop()
	go r.janitor()
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

// Path is where a job's file is kept.
func (r *Runner) Path(id string) string { return filepath.Join(r.cfg.Dir, id+".xlsx") }

// Received is a stored upload, and the earlier uploads of the same file if any.
type Received struct {
	Job     store.UploadJob
	Earlier []store.UploadJob
}

// Receive stores the file read from src (at most MaxBytes, else ErrTooBig) with its
// SHA-256, records the upload and starts its analysis. When the same file was uploaded
// before, the upload is held instead, until the person confirms.
func (r *Runner) Receive(ctx context.Context, actor auth.Actor, kind Kind, name string, src io.Reader) (Received, error) {
	ext := strings.ToLower(filepath.Ext(name))
	switch {
	case ext == ".xls":
		return Received{}, &FileError{Code: "old_or_protected"}
	case ext != ".xlsx":
		return Received{}, &FileError{Code: "not_xlsx"}
	}
	if err := os.MkdirAll(r.cfg.Dir, 0o750); err != nil {
		return Received{}, fmt.Errorf("uploads: create upload directory: %w", err)
	}
	tmp, err := os.CreateTemp(r.cfg.Dir, "receive-*.part")
	if err != nil {
		return Received{}, fmt.Errorf("uploads: store file: %w", err)
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), io.LimitReader(src, r.cfg.MaxBytes+1))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return Received{}, fmt.Errorf("uploads: store file: %w", err)
	}
	if n > r.cfg.MaxBytes {
		return Received{}, ErrTooBig
	}
	if n == 0 {
		return Received{}, &FileError{Code: "empty_file"}
	}
	sum := hex.EncodeToString(h.Sum(nil))
	earlier, err := r.db.UploadJobsWithHash(ctx, sum, "", StateDiscarded)
	if err != nil {
		return Received{}, err
	}
	state := StateAnalysing
	if len(earlier) > 0 {
		state = StateHeld
	}
	job, err := r.db.CreateUploadJob(ctx, store.UploadJob{Kind: string(kind), FileName: cleanName(name), FileSHA256: sum,
		FileSize: n, FileKept: true, State: state, UploadedByID: actor.ID, UploadedBy: actor.Username})
	if err != nil {
		return Received{}, err
	}
	if err := os.Rename(tmp.Name(), r.Path(job.ID)); err != nil {
		_, _ = r.db.SetUploadJobState(ctx, job.ID, StateDiscarded, state)
		_ = r.db.SetUploadFileKept(ctx, job.ID, false)
		return Received{}, fmt.Errorf("uploads: store file: %w", err)
	}
	if state == StateAnalysing {
		r.startAnalysis(job.ID)
	}
	return Received{Job: job, Earlier: earlier}, nil
}

// cleanName keeps the base name of what the browser sent, for the history only.
func cleanName(name string) string {
	name = filepath.Base(strings.ReplaceAll(name, `\`, "/"))
	if len(name) > 200 {
		name = name[:200]
	}
	return name
}

// Analyse starts the analysis of a held upload (the person confirmed despite the earlier
// upload of the same file) or analyses an invalid one again (the service did not answer).
func (r *Runner) Analyse(ctx context.Context, id string) error {
	j, err := r.db.UploadJobByID(ctx, id)
	if err != nil {
		return err
	}
	if !j.FileKept {
		return ErrFileGone
	}
	ok, err := r.db.SetUploadJobState(ctx, id, StateAnalysing, StateHeld, StateInvalid)
	if err != nil {
		return err
	}
	if !ok {
		return ErrState
	}
	r.startAnalysis(id)
	return nil
}

// Commit queues a previewed upload's job on behalf of actor.
func (r *Runner) Commit(ctx context.Context, id string, actor auth.Actor) error {
	ok, err := r.db.CommitUploadJob(ctx, id, StateReady, StateQueued, actor.ID, actor.Username, string(actor.Role), actor.IP)
	if err != nil {
		return err
	}
	if !ok {
		return ErrState
	}
	r.wakeUp()
	return nil
}

// Retry queues again a job that ended with rows not sent (the service was unavailable,
// or calls went unanswered); rows the service refused stay refused.
func (r *Runner) Retry(ctx context.Context, id string) error {
	j, err := r.db.UploadJobByID(ctx, id)
	if err != nil {
		return err
	}
	if j.State != StatePartial && j.State != StateFailed {
		return ErrState
	}
	// The chunks first, the job's state last: the job loop must not find the job sending
	// while its chunks still say failed, or it would finish it again at once.
	chunks, err := r.db.UploadChunks(ctx, id)
	if err != nil {
		return err
	}
	for _, c := range chunks {
		if c.State == ChunkFailed && len(c.PendingRows) > 0 {
			c.State = ChunkPending
			if err := r.db.SaveUploadChunk(ctx, c); err != nil {
				return err
			}
		}
	}
	next := StateSending
	if len(chunks) == 0 {
		// It failed before any chunk was made (the service did not answer the check):
		// it starts again from the check.
		if !j.FileKept {
			return ErrFileGone
		}
		next = StateQueued
		if err := r.db.SetUploadProblem(ctx, id, "", nil); err != nil {
			return err
		}
	}
	ok, err := r.db.SetUploadJobState(ctx, id, next, StatePartial, StateFailed)
	if err != nil {
		return err
	}
	if !ok {
		return ErrState
	}
	r.wakeUp()
	return nil
}

// Discard drops an upload before it was committed, and its file.
func (r *Runner) Discard(ctx context.Context, id string) error {
	ok, err := r.db.SetUploadJobState(ctx, id, StateDiscarded, StateHeld, StateReady, StateInvalid)
	if err != nil {
		return err
	}
	if !ok {
		return ErrState
	}
	r.removeFile(ctx, id)
	return nil
}

func (r *Runner) removeFile(ctx context.Context, id string) {
	if err := os.Remove(r.Path(id)); err != nil && !errors.Is(err, os.ErrNotExist) {
		r.log.Error("remove upload file", "job", id, "err", err)
		return
	}
	if err := r.db.SetUploadFileKept(ctx, id, false); err != nil {
		r.log.Error("record removed upload file", "job", id, "err", err)
	}
}

// Wait blocks until the job is in none of the busy states (analysing, queued, checking,
// sending) or ctx ends, and returns the job as it is then.
func (r *Runner) Wait(ctx context.Context, id string) (store.UploadJob, error) {
	for {
		j, err := r.db.UploadJobByID(ctx, id)
		if err != nil {
			return j, err
		}
		if j.State != StateAnalysing && !Running(j.State) {
			return j, nil
		}
		t := time.NewTimer(20 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return j, ctx.Err()
		case <-t.C:
		}
	}
}

// options are the reading options for a kind.
func (r *Runner) options(kind Kind) Options {
	return Options{Kind: kind, Accounts: r.cfg.Accounts, Limits: r.cfg.Limits,
		Students: &Directory{DB: r.db, Client: r.client, Concurrency: r.cfg.LookupConcurrency, Now: r.now},
		Existing: &Finder{Client: r.client, Concurrency: r.cfg.LookupConcurrency}}
}

// startAnalysis analyses a job in the background (once at a time per job).
func (r *Runner) startAnalysis(id string) {
	r.mu.Lock()
	if r.analyses[id] || r.stopped || r.ctx == nil {
		r.mu.Unlock()
		return
	}
	r.analyses[id] = true
	r.wg.Add(1)
	r.mu.Unlock()
	go func() {
		defer func() {
			r.mu.Lock()
			delete(r.analyses, id)
			r.mu.Unlock()
			r.wg.Done()
		}()
		ctx, cancel := context.WithCancel(r.ctx)
		defer cancel()
		go func() {
			select {
			case <-r.quit:
				cancel() // an analysis is cheap to redo: stopping ends it
			case <-ctx.Done():
			}
		}()
		select {
		case r.slots <- struct{}{}:
			defer func() { <-r.slots }()
		case <-ctx.Done():
			return
		}
		if err := r.analyseLeased(ctx, cancel, id); err != nil && ctx.Err() == nil {
			r.log.Error("upload analysis", "job", id, "err", err)
		}
	}()
}

// analyseLeased analyses under the job's lease, like a job's run: when several portal
// instances start together, each resumes the unfinished analyses, and only the one that
// claims an upload reads it (two would trip over each other's problem rows). One whose
// lease is held elsewhere is left to that instance, or to the next start after it lapsed.
func (r *Runner) analyseLeased(ctx context.Context, cancel context.CancelFunc, id string) error {
	now := r.now()
	until := now.Add(r.cfg.LeaseTTL)
	ok, err := r.db.ClaimUploadJob(ctx, id, r.owner, until, now)
	if err != nil {
		return fmt.Errorf("claim: %w", err)
	}
	if !ok {
		r.log.Info("upload analysis runs in another instance", "job", id)
		return nil
	}
	leaseCtx, stopLease := context.WithCancel(ctx)
	renewed := make(chan struct{})
	go func() {
		defer close(renewed)
		r.keepLease(leaseCtx, cancel, id, until)
	}()
	err = r.analyse(ctx, id)
	stopLease()
	<-renewed
	rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer rcancel()
	if rerr := r.db.ReleaseUploadJob(rctx, id, r.owner); rerr != nil {
		r.log.Error("upload analysis: release lease", "job", id, "err", rerr)
	}
	return err
}

// issueBatch is how many problems are written to the database at once.
const issueBatch = 1000

func (r *Runner) analyse(ctx context.Context, id string) error {
	j, err := r.db.UploadJobByID(ctx, id)
	if err != nil {
		return err
	}
	if j.State != StateAnalysing {
		return nil
	}
	if err := r.db.DeleteUploadIssues(ctx, id); err != nil {
		return err
	}
	var batch []store.UploadIssue
	seq := 0
	flush := func() error {
		err := r.db.InsertUploadIssues(ctx, id, seq, batch)
		seq += len(batch)
		batch = batch[:0]
		return err
	}
	sum, err := Analyse(ctx, r.Path(id), r.options(Kind(j.Kind)), func(is Issue) error {
		batch = append(batch, is.Stored())
		if len(batch) >= issueBatch {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	if ctx.Err() != nil {
		return ctx.Err() // stopping: analysed again at the next start
	}
	a := store.UploadAnalysis{State: StateReady, RowsTotal: sum.Rows, RowsNew: sum.New, RowsAlready: sum.Already,
		RowsError: sum.Errors, Issues: sum.Issues}
	for _, t := range sum.Totals {
		a.Totals = append(a.Totals, store.UploadTotal{AccountCode: t.AccountCode, Rows: t.Rows, Amount: t.Amount})
	}
	var fe *FileError
	switch {
	case errors.As(err, &fe):
		a = store.UploadAnalysis{State: StateInvalid, Problem: fe.Code, ProblemArgs: fe.Args}
		err = nil
	case err != nil && isUpstream(err):
		r.log.Warn("upload analysis: billing service", "job", id, "err", err)
		a = store.UploadAnalysis{State: StateInvalid, Problem: "upstream"}
		err = nil
	case err != nil:
		a = store.UploadAnalysis{State: StateInvalid, Problem: "internal"}
	}
	if _, serr := r.db.SaveUploadAnalysis(context.WithoutCancel(ctx), id, StateAnalysing, a); serr != nil {
		return serr
	}
	return err
}

// isUpstream reports whether err came from talking to the billing service.
func isUpstream(err error) bool {
	var apiErr *billing.APIError
	return errors.As(err, &apiErr) || errors.Is(err, billing.ErrTimeout) || errors.Is(err, billing.ErrUnavailable) ||
		errors.Is(err, billing.ErrUnauthorized)
}

// janitor removes the files of old uploads: finished jobs after Retention, and uploads
// never committed (which it discards).
func (r *Runner) janitor() {
	defer r.wg.Done()
	for {
		r.clean(r.ctx)
		if !r.sleep(time.Hour) {
			return
		}
	}
}

func (r *Runner) clean(ctx context.Context) {
	jobs, err := r.db.UploadJobsWithFilesBefore(ctx, r.now().Add(-r.cfg.Retention))
	if err != nil {
		r.log.Error("upload clean-up", "err", err)
		return
	}
	for _, j := range jobs {
		switch {
		case Running(j.State), j.State == StateAnalysing:
			continue
		case j.State == StateHeld, j.State == StateReady, j.State == StateInvalid:
			if err := r.Discard(ctx, j.ID); err != nil && !errors.Is(err, ErrState) {
				r.log.Error("upload clean-up", "job", j.ID, "err", err)
			}
		default:
			r.removeFile(ctx, j.ID)
		}
	}
	// Files of receptions cut short by a crash.
	parts, _ := filepath.Glob(filepath.Join(r.cfg.Dir, "receive-*.part"))
	for _, p := range parts {
		if fi, err := os.Stat(p); err == nil && r.now().Sub(fi.ModTime()) > time.Hour {
			_ = os.Remove(p)
		}
	}
}

// ErrorWorkbook writes the job's error workbook (see WriteErrorWorkbook) in p's language.
func (r *Runner) ErrorWorkbook(ctx context.Context, j store.UploadJob, w io.Writer, p i18n.Printer) error {
	if !j.FileKept {
		return ErrFileGone
	}
	return WriteErrorWorkbook(ctx, w, r.Path(j.ID), Kind(j.Kind), r.cfg.Limits, r.db.AllUploadIssues(ctx, j.ID), p)
}

// Template writes the kind's template with the configured account codes.
func (r *Runner) Template(w io.Writer, kind Kind) error {
	return WriteTemplate(w, kind, r.cfg.Accounts)
}

// Outcome is where a committed job stands: its chunks summed, the rows the service
// refused (the first maxFailures of them) and why rows are still unsent, if they are.
type Outcome struct {
	Progress     store.UploadProgress
	Failures     []store.UploadFailure
	MoreFailures int
	// UnsentReason is FailUnavailable or FailRefused when rows were given up on for now.
	UnsentReason string
}

// maxFailures bounds the refused rows a page lists; the rest are counted.
const maxFailures = 100

// Outcome sums the job's chunks.
func (r *Runner) Outcome(ctx context.Context, id string) (Outcome, error) {
	var o Outcome
	var err error
	if o.Progress, err = r.db.UploadProgressOf(ctx, id, ChunkConfirmed, ChunkFailed, ChunkSent, ChunkUnknown); err != nil {
		return o, err
	}
	if o.Progress.FailedRows == 0 && o.Progress.Failed == 0 {
		return o, nil
	}
	chunks, err := r.db.UploadChunks(ctx, id)
	if err != nil {
		return o, err
	}
	for _, c := range chunks {
		for _, f := range c.Failures {
			if len(o.Failures) < maxFailures {
				o.Failures = append(o.Failures, f)
			} else {
				o.MoreFailures++
			}
		}
		if c.State == ChunkFailed && len(c.PendingRows) > 0 {
			o.UnsentReason = FailUnavailable
			if c.LastError == FailRefused {
				o.UnsentReason = FailRefused
			}
		}
	}
	slices.SortFunc(o.Failures, func(a, b store.UploadFailure) int { return a.Row - b.Row })
	return o, nil
}
