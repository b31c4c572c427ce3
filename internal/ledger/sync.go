package ledger

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/jobs"
	"github.com/sekolah/portal/internal/store"
)

// Defaults of a SyncConfig's zero fields.
const (
	DefaultSyncEvery       = time.Minute
	DefaultLeaseTTL        = 5 * time.Minute
	DefaultFillConcurrency = 4
	DefaultAskPoll         = 5 * time.Second
)

// SyncConfig builds a Syncer.
type SyncConfig struct {
	Ledger *Ledger
	Client *billing.Client
	// Every is how often the incremental sync runs (default one minute).
	Every time.Duration
	// ReconcileHour is the hour of the day (0–23, in the ledger's zone) after which the
	// nightly full reconcile runs; -1 turns the nightly run off (it still runs on demand).
	ReconcileHour int
	// LeaseTTL is how long the sync's lease lasts unless renewed (default 5 minutes):
	// an instance that dies hands the sync to another after it. It is renewed every
	// LeaseTTL/5 while a run goes on.
	LeaseTTL time.Duration
	// FillConcurrency is how many pages a full walk (the first fill, a reconcile) has in
	// flight, to hide the service's latency (default 4).
	FillConcurrency int
	// AskPoll is how often the loop looks in the database for a person's request to
	// sync or reconcile now, made on any instance (default 5 seconds).
	AskPoll time.Duration
	// Owner names this instance in the lease; default a new id.
	Owner  string
	Logger *slog.Logger
}

// Syncer keeps the ledger true to the service: a first fill of an empty ledger, an
// incremental sync every minute and a full reconcile at night and on demand, each run
// under a database lease so that one instance syncs. Start sets it going, Stop ends it.
type Syncer struct {
	cfg    SyncConfig
	l      *Ledger
	client *billing.Client
	log    *slog.Logger
	lease  *lease

	worker *jobs.Worker
	wake   chan struct{} // Nudge: run now
	ask    chan struct{} // a request to sync or reconcile now was made here
	first  chan struct{} // closed after the loop's first run
	runMu  sync.Mutex    // one run at a time in this process
	served atomic.Int64  // the requests to sync now that a run of this instance has started after
}

// NewSyncer makes a syncer; Start sets it going.
func NewSyncer(cfg SyncConfig) (*Syncer, error) {
	if cfg.Ledger == nil || cfg.Client == nil {
		return nil, errors.New("ledger: a syncer needs the ledger and the billing client")
	}
	cfg.Every = cmp.Or(cfg.Every, DefaultSyncEvery)
	cfg.LeaseTTL = cmp.Or(cfg.LeaseTTL, DefaultLeaseTTL)
	cfg.FillConcurrency = cmp.Or(cfg.FillConcurrency, DefaultFillConcurrency)
	cfg.AskPoll = cmp.Or(cfg.AskPoll, DefaultAskPoll)
	cfg.Owner = cmp.Or(cfg.Owner, store.NewID())
	if cfg.ReconcileHour > 23 || cfg.ReconcileHour < -1 {
		return nil, fmt.Errorf("ledger: reconcile hour %d is not 0–23 (or -1 for never)", cfg.ReconcileHour)
	}
	log := cmp.Or(cfg.Logger, cfg.Ledger.log)
	s := &Syncer{cfg: cfg, l: cfg.Ledger, client: cfg.Client, log: log, wake: make(chan struct{}, 1), ask: make(chan struct{}, 1),
		first: make(chan struct{}), worker: jobs.NewWorker()}
	s.lease = &lease{name: syncLease, Lease: jobs.Lease{Leases: cfg.Ledger.db.NamedLeases(), Owner: cfg.Owner, TTL: cfg.LeaseTTL,
		Renew: max(cfg.LeaseTTL/5, time.Millisecond), Clock: clock.New(cfg.Ledger.now, time.UTC), Log: log}}
	return s, nil
}

// Start runs the sync loop in the background: a run at once, then every Every (and
// whenever Nudge asks). It returns at once.
func (s *Syncer) Start(ctx context.Context) error {
	if err := s.worker.Run(ctx, s.loop); err != nil {
		return fmt.Errorf("ledger: syncer: %w", err)
	}
	return nil
}

// Stop ends the loop, aborting a run in flight (every write is its own transaction and
// a fill resumes where it stopped), releases the lease so another instance may go on,
// and waits for the loop to end or ctx.
func (s *Syncer) Stop(ctx context.Context) error { return s.worker.Halt(ctx) }

// AskReconcile asks for a full reconcile (an admin's button, by a username): recorded
// in the database so whichever instance holds the sync's lease runs it within AskPoll,
// and on this instance at once.
func (s *Syncer) AskReconcile(ctx context.Context, by string) error {
	if err := s.l.AskReconcile(ctx, by); err != nil {
		return err
	}
	s.signal(s.ask)
	return nil
}

// AskSync asks for an incremental sync now (the students page's sync button, a page's
// refresh), the same way.
func (s *Syncer) AskSync(ctx context.Context, by string) error {
	if err := s.l.AskSync(ctx, by); err != nil {
		return err
	}
	s.signal(s.ask)
	return nil
}

// Owner is the name this instance holds the sync's lease under.
func (s *Syncer) Owner() string { return s.cfg.Owner }

// Every is how often the incremental sync runs.
func (s *Syncer) Every() time.Duration { return s.cfg.Every }

// Nudge asks for a run soon (a callback named components the ledger does not have yet;
// an admin asked for a reconcile).
func (s *Syncer) Nudge() { s.signal(s.wake) }

// signal wakes the loop through ch without waiting (a wake already pending is enough).
func (s *Syncer) signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// FirstRun is closed once the loop's first run (a first fill and the sync after it, or
// the sync due at start) has ended, well or not.
func (s *Syncer) FirstRun() <-chan struct{} { return s.first }

func (s *Syncer) loop(ctx context.Context) {
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		s.lease.release(rctx)
	}()
	t := time.NewTimer(0)
	defer t.Stop()
	poll := time.NewTicker(s.cfg.AskPoll)
	defer poll.Stop()
	first := true
	for {
		select {
		case <-ctx.Done():
			if first {
				close(s.first)
			}
			return
		case <-t.C:
		case <-s.wake:
		case <-s.ask:
			if !s.askWaits(ctx) {
				continue
			}
		case <-poll.C:
			// A request made on another instance (or this one, the poll seeing it first).
			if !s.askWaits(ctx) {
				continue
			}
		}
		if _, err := s.Run(ctx); err != nil && !errors.Is(err, ErrLeaseHeld) && ctx.Err() == nil {
			s.log.Warn("ledger sync failed; the figures stay as of the last good sync", "err", err)
		}
		if first {
			first = false
			close(s.first)
			// An index a migration added gets its statistics once per start, after the
			// first run (the others are refreshed after each reconcile).
			s.l.analyzeNewIndexes(ctx)
		}
		if !t.Stop() {
			select {
			case <-t.C:
			default:
			}
		}
		t.Reset(s.cfg.Every)
	}
}

// askWaits reports whether a request to sync or reconcile now waits that no run of this
// instance has started after: a failing run is not tried again every few seconds, and a
// request seen twice (here and by the poll) runs once.
func (s *Syncer) askWaits(ctx context.Context) bool {
	n, err := s.l.askSeq(ctx)
	return err == nil && n > s.served.Load()
}

// ErrLeaseHeld means another instance holds the sync's lease: it does the sync.
var ErrLeaseHeld = errors.New("ledger: another instance is syncing")

// Run does what is due now, under the lease: the first fill (and then an incremental
// sync) while the ledger is not filled, a reconcile when asked for or due tonight,
// else an incremental sync. It records how it went in the sync state.
func (s *Syncer) Run(ctx context.Context) (RunResult, error) {
	return s.run(ctx, "")
}

// RunIncremental runs an incremental sync now (a fill first if the ledger is empty).
func (s *Syncer) RunIncremental(ctx context.Context) (RunResult, error) {
	return s.run(ctx, RunIncremental)
}

// RunReconcile runs a full reconcile now (a fill if the ledger is empty).
func (s *Syncer) RunReconcile(ctx context.Context) (RunResult, error) {
	return s.run(ctx, RunReconcile)
}

func (s *Syncer) run(ctx context.Context, want string) (RunResult, error) {
	s.runMu.Lock()
	defer s.runMu.Unlock()
	var res RunResult
	held, err := s.lease.hold(ctx, func(rctx context.Context) (err error) {
		res, err = s.runHeld(rctx, want)
		return err
	})
	if err == nil && !held {
		err = ErrLeaseHeld
	}
	return res, err
}

// runHeld is a run under the sync's lease.
func (s *Syncer) runHeld(rctx context.Context, want string) (RunResult, error) {
	st, err := s.l.syncState(rctx)
	if err != nil {
		return RunResult{}, err
	}
	s.served.Store(st.askSeq)
	if !st.syncAsked.IsZero() {
		// This run answers the request to sync now, whatever it finds.
		if _, err := s.l.sql.ExecContext(rctx, `UPDATE ledger_state SET sync_asked_at = NULL, sync_asked_by = ''
			WHERE name = 'ledger' AND sync_asked_at <= $1`, store.Time(s.l.now())); err != nil {
			return RunResult{}, fmt.Errorf("ledger: sync state: %w", err)
		}
	}
	var filled *RunResult
	if st.fill != FillFilled {
		res, err := s.record(rctx, RunFill, "", func(r *RunResult) error { return s.fill(rctx, st, r) })
		if err != nil {
			return res, err
		}
		if st, err = s.l.syncState(rctx); err != nil {
			return res, err
		}
		filled = &res
		want = RunIncremental // catch up with what changed during the fill
	}
	if want == "" {
		want = RunIncremental
		if s.reconcileDue(st) {
			want = RunReconcile
		}
	}
	var res RunResult
	if want == RunReconcile {
		by := ""
		if !st.reconcileAsked.IsZero() {
			by = st.reconcileBy
		}
		res, err = s.record(rctx, RunReconcile, by, func(r *RunResult) error { return s.reconcile(rctx, st, r) })
	} else {
		res, err = s.record(rctx, RunIncremental, st.syncBy, func(r *RunResult) error { return s.incremental(rctx, st, r) })
	}
	if filled != nil {
		res = filled.then(res)
	}
	return res, err
}

// then is a fill followed by the run after it, as one result.
func (r RunResult) then(o RunResult) RunResult {
	r.End = o.End
	r.Calls += o.Calls
	r.Components.add(o.Components)
	r.Payments.add(o.Payments)
	r.Students += o.Students
	r.Removed += o.Removed
	r.Missing += o.Missing
	r.Corrected += o.Corrected
	r.Callbacks += o.Callbacks
	return r
}

// reconcileDue: asked for (a reconcile that ends well clears the asks made before it
// started), or the nightly hour has passed since the last one.
func (s *Syncer) reconcileDue(st syncState) bool {
	if !st.reconcileAsked.IsZero() {
		return true
	}
	if s.cfg.ReconcileHour < 0 {
		return false
	}
	now := s.l.now().In(s.l.loc)
	y, m, d := now.Date()
	last := time.Date(y, m, d, s.cfg.ReconcileHour, 0, 0, 0, s.l.loc)
	if now.Before(last) {
		last = last.AddDate(0, 0, -1)
	}
	return st.reconciledAt.Before(last)
}

// RunResult says what one run did.
type RunResult struct {
	Kind       string
	Start, End time.Time
	Calls      int         // calls to the service (each retry inside the client not counted)
	Components WriteResult // from the component pages
	Payments   WriteResult // from the payment window
	Students   int         // roster entries added or changed
	Removed    int         // roster entries the service no longer lists
	Missing    int         // ledger components a walk did not see, looked up one by one
	Corrected  int         // differences a reconcile corrected (each audited)
	Callbacks  int         // components an old callback had marked paid, corrected from the service (callback_check.go)
}

// Summary is one line for the sync state and the logs.
func (r RunResult) Summary() string {
	var parts []string
	add := func(n int, what string) {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, what))
		}
	}
	add(r.Components.Inserted+r.Payments.Inserted, "new components")
	add(r.Components.Updated+r.Payments.Updated, "changed components")
	add(r.Students, "students added or changed")
	add(r.Removed, "students removed")
	add(r.Missing, "components looked up")
	add(r.Corrected, "differences corrected")
	add(r.Callbacks, "callback payments corrected")
	if len(parts) == 0 {
		return fmt.Sprintf("no changes (%d calls)", r.Calls)
	}
	return strings.Join(parts, ", ") + fmt.Sprintf(" (%d calls)", r.Calls)
}

// record runs one kind of run and writes its start, end and outcome to the state and
// to the runs every instance lists.
func (s *Syncer) record(ctx context.Context, kind, askedBy string, fn func(r *RunResult) error) (RunResult, error) {
	r := RunResult{Kind: kind, Start: s.l.now()}
	if err := s.l.setState(ctx, s.l.sql, `attempt_kind = $1, attempt_started_at = $2, attempt_ended_at = NULL,
		attempt_ok = 0, attempt_error_kind = '', attempt_error = '', attempt_calls = 0, attempt_summary = ''`,
		kind, store.Time(r.Start)); err != nil {
		return r, err
	}
	runID, err := s.l.startRun(ctx, kind, s.cfg.Owner, askedBy, r.Start)
	if err != nil {
		return r, err
	}
	err = fn(&r)
	r.End = s.l.now()
	// The outcome is written even when the run was stopped: the next start says so.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err != nil {
		problem := problemOf(err)
		if ctx.Err() != nil {
			problem = ProblemStopped // this instance stopped it (shutting down, or its lease lapsed)
		}
		msg := err.Error()
		if len(msg) > 500 {
			msg = msg[:500]
		}
		if werr := s.l.setState(wctx, s.l.sql, `attempt_ended_at = $1, attempt_ok = 0, attempt_error_kind = $2,
			attempt_error = $3, attempt_calls = $4, attempt_summary = $5`,
			store.Time(r.End), problem, msg, r.Calls, r.Summary()); werr != nil {
			s.log.Error("ledger sync: record failure", "err", werr)
		}
		if werr := s.l.endRun(wctx, runID, r, problem, msg); werr != nil {
			s.log.Error("ledger sync: record failure", "err", werr)
		}
		s.l.obs.SyncRan(kind, problem, r.End.Sub(r.Start))
		return r, fmt.Errorf("ledger: %s: %w", kind, err)
	}
	if err := s.l.setState(wctx, s.l.sql, `attempt_ended_at = $1, attempt_ok = 1, attempt_calls = $2,
		attempt_summary = $3, synced_at = $4`, store.Time(r.End), r.Calls, r.Summary(), store.Time(r.Start)); err != nil {
		return r, err
	}
	if err := s.l.endRun(wctx, runID, r, "", ""); err != nil {
		return r, err
	}
	s.l.obs.SyncRan(kind, "", r.End.Sub(r.Start))
	level := slog.LevelInfo
	if r.Components.Changed()+r.Payments.Changed()+r.Students+r.Removed+r.Corrected+r.Callbacks == 0 {
		level = slog.LevelDebug // the every-minute run that found nothing
	}
	s.log.Log(ctx, level, "ledger sync", "kind", kind, "took", r.End.Sub(r.Start).Round(time.Millisecond), "summary", r.Summary())
	return r, nil
}

// provesEnd reports whether a page of n records, asked with limit, is the last: an empty
// page always; a shorter one only once the service has been seen to answer pages of
// at least that size (it may cap a page silently below what was asked).
func provesEnd(n, limit, seen int) bool {
	return n == 0 || n < min(limit, seen)
}

// incremental first asks about any component an old callback marked paid that the
// service never confirmed (callback_check.go; none after the first run), then reads what
// changed since the last sync: new components newest first until the first one the
// ledger knows, the payments of the days since the last sync (with a day of overlap), and
// the newest students until the first known one. When nothing changed that is three calls.
func (s *Syncer) incremental(ctx context.Context, st syncState, r *RunResult) error {
	start := r.Start
	if err := s.checkCallbackRows(ctx, r); err != nil {
		return err
	}
	if err := s.newComponents(ctx, &st, r); err != nil {
		return err
	}
	if err := s.newPayments(ctx, &st, r); err != nil {
		return err
	}
	if err := s.newStudents(ctx, &st, r); err != nil {
		return err
	}
	return s.l.setState(ctx, s.l.sql, `payments_since = $1, search_page = $2, student_page = $3`,
		store.Time(start), st.searchPage, st.studentPage)
}

func (s *Syncer) newComponents(ctx context.Context, st *syncState, r *RunResult) error {
	offset := 0
	for {
		page, err := s.client.Search(ctx, billing.Query{Offset: offset, Limit: billing.MaxLimit})
		r.Calls++
		if err != nil {
			return fmt.Errorf("new components: %w", err)
		}
		st.searchPage = max(st.searchPage, len(page))
		known, err := s.l.knownIDs(ctx, page)
		if err != nil {
			return err
		}
		res, err := s.l.Upsert(ctx, page)
		if err != nil {
			return err
		}
		r.Components.add(res)
		if known > 0 || provesEnd(len(page), billing.MaxLimit, st.searchPage) {
			return nil
		}
		offset += len(page)
	}
}

func (s *Syncer) newPayments(ctx context.Context, st *syncState, r *RunResult) error {
	since := st.paymentsSince
	if since.IsZero() {
		since = st.fillStart
	}
	from := billing.DayIn(since, s.l.loc).AddDate(0, 0, -1)
	offset := 0
	for {
		page, err := s.client.Search(ctx, billing.Query{PaidFrom: from, Offset: offset, Limit: billing.MaxLimit})
		r.Calls++
		if err != nil {
			return fmt.Errorf("payments since %s: %w", from.Format(time.DateOnly), err)
		}
		st.searchPage = max(st.searchPage, len(page))
		res, err := s.l.Upsert(ctx, page)
		if err != nil {
			return err
		}
		r.Payments.add(res)
		if provesEnd(len(page), billing.MaxLimit, st.searchPage) {
			return nil
		}
		offset += len(page)
	}
}

func (s *Syncer) newStudents(ctx context.Context, st *syncState, r *RunResult) error {
	offset := 0
	for {
		page, err := s.client.ListStudents(ctx, billing.StudentQuery{Offset: offset, Limit: billing.MaxStudentLimit})
		r.Calls++
		if err != nil {
			return fmt.Errorf("new students: %w", err)
		}
		st.studentPage = max(st.studentPage, len(page))
		known, changed, err := s.l.upsertStudents(ctx, page, nil)
		if err != nil {
			return err
		}
		r.Students += changed
		if known > 0 || provesEnd(len(page), billing.MaxStudentLimit, st.studentPage) {
			return nil
		}
		offset += len(page)
	}
}

// knownIDs counts the page's components the ledger already has (deleted ones included).
func (l *Ledger) knownIDs(ctx context.Context, page []billing.Bill) (int, error) {
	ids := make([]string, len(page))
	for i, b := range page {
		ids[i] = b.ComponentID
	}
	rows, err := loadRows(ctx, l.sql, ids)
	return len(rows), err
}

// upsertStudents writes the students of a page that are new to the roster or differ
// from it (from the service's student list, so source "sync"); it returns how many were
// already known and how many it wrote. With audit, each written difference is audited.
func (l *Ledger) upsertStudents(ctx context.Context, page []billing.Student, audit *auditor) (known, changed int, err error) {
	if len(page) == 0 {
		return 0, 0, nil
	}
	nis := make([]string, len(page))
	for i, s := range page {
		nis[i] = s.NIS
	}
	have, err := l.db.StudentsByNIS(ctx, nis)
	if err != nil {
		return 0, 0, err
	}
	var write []store.Student
	var diffs []string
	now := l.now()
	for _, s := range page {
		if s.NIS == "" {
			continue
		}
		keyName := cmp.Or(s.KeyName, billing.DefaultKeyName)
		s.KeyName = keyName
		old, ok := have[s.NIS]
		if ok {
			known++
			if old.Name == s.Name && old.KeyName == keyName && old.Phone == s.Phone && old.Email == s.Email && old.Description == s.Description {
				continue
			}
		}
		write = append(write, store.Student{NIS: s.NIS, Name: s.Name, KeyName: keyName, Phone: s.Phone, Email: s.Email,
			Description: s.Description, Source: store.SourceSync, SyncedAt: now})
		if audit != nil {
			diffs = append(diffs, studentDiff(old, ok, s))
		}
	}
	if len(write) == 0 {
		return known, 0, nil
	}
	err = l.writeTx(ctx, func(tx *sql.Tx) error {
		if err := l.db.UpsertStudentsTx(ctx, tx, write); err != nil {
			return err
		}
		for i, s := range write {
			if audit != nil {
				if err := audit.student(ctx, tx, s.NIS, diffs[i]); err != nil {
					return err
				}
			}
		}
		return bumpChanges(ctx, tx)
	})
	return known, len(write), err
}
