package students

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/store"
)

// Defaults of a Syncer whose fields are zero.
const (
	DefaultRefreshAfter = 24 * time.Hour
	DefaultConcurrency  = 4
	DefaultRunLimit     = 30 * time.Minute
)

// SyncState is where the sync job stands.
type SyncState string

// The states of the sync job.
const (
	SyncIdle    SyncState = "idle"    // never ran in this process
	SyncRunning SyncState = "running" // under way
	SyncDone    SyncState = "done"    // finished (perhaps with some students failing)
	SyncFailed  SyncState = "failed"  // stopped early: Err says why, totals untouched
)

// SyncPhase is the step a running job is in.
type SyncPhase string

// The steps of a sync run, in order.
const (
	PhaseBills    SyncPhase = "bills"    // reading every bill
	PhaseStudents SyncPhase = "students" // fetching new and stale students
	PhaseTotals   SyncPhase = "totals"   // writing outstanding totals
)

// ErrSyncRunning means a sync is already under way; the caller shows its progress.
var ErrSyncRunning = errors.New("students: a roster sync is already running")

// ErrStopped means the syncer is not started, or stopped: no run begins.
var ErrStopped = errors.New("students: the roster sync is stopped")

// Progress is a snapshot of the sync job.
type Progress struct {
	State      SyncState
	Phase      SyncPhase
	By         string // who started it
	StartedAt  time.Time
	FinishedAt time.Time
	BillsRead  int // components read
	Students   int // distinct NIS among them
	ToFetch    int // students to fetch (new or stale)
	Fetched    int // of ToFetch, done (successfully or not)
	Added      int // new roster entries
	Refreshed  int // existing entries read again
	Removed    int // roster entries the service no longer knows
	Failures   int // students that could not be fetched
	Totals     int // students whose totals were written
	// Err is what stopped a failed run, or the last per-student failure of a done one.
	Err error
}

// Running reports whether the job is under way.
func (p Progress) Running() bool { return p.State == SyncRunning }

// Percent is a rough share of the work done, for a progress bar.
func (p Progress) Percent() int {
	switch {
	case p.State == SyncDone:
		return 100
	case p.Phase == PhaseStudents && p.ToFetch > 0:
		return 10 + 80*p.Fetched/p.ToFetch
	case p.Phase == PhaseTotals:
		return 95
	}
	return 5
}

// Syncer fills the roster from the billing service: it reads every bill, fetches the
// students the roster lacks (and those read more than RefreshAfter ago), and writes each
// student's outstanding total and overdue count. One run at a time per Syncer; running it
// again is harmless, since every write is an upsert of what the service says.
//
// It is a background worker of the portal process: cmd/portal Starts it, people start
// runs with Sync, and Stop cancels a run under way and waits for it before the database
// closes.
type Syncer struct {
	Billing *billing.Client
	DB      *store.DB
	Log     *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Location is the service time zone that decides "today" for the totals.
	Location *time.Location
	// RefreshAfter is how old a roster entry may be before it is read again.
	RefreshAfter time.Duration
	// Concurrency bounds the student fetches in flight.
	Concurrency int
	// RunLimit bounds a whole run.
	RunLimit time.Duration

	mu       sync.Mutex
	progress Progress
	done     chan struct{}
	ctx      context.Context // the worker's: runs end with it
	cancel   context.CancelFunc
}

func (s *Syncer) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Syncer) logger() *slog.Logger {
	if s.Log != nil {
		return s.Log
	}
	return slog.Default()
}

// Progress returns a snapshot of the current or last run.
func (s *Syncer) Progress() Progress {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.progress
	if p.State == "" {
		p.State = SyncIdle
	}
	return p
}

func (s *Syncer) update(fn func(p *Progress)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn(&s.progress)
}

// Start makes the worker ready: runs started by Sync live under ctx (minus its deadline
// and values' cancellation by the caller's request) until Stop.
func (s *Syncer) Start(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ctx != nil {
		return errors.New("students: the roster sync is already started")
	}
	s.ctx, s.cancel = context.WithCancel(ctx)
	return nil
}

// Stop cancels a run under way and waits for it to end, or for ctx. No run starts after.
func (s *Syncer) Stop(ctx context.Context) error {
	s.mu.Lock()
	if s.cancel != nil {
		s.cancel()
	}
	s.mu.Unlock()
	return s.Wait(ctx)
}

// begin claims the job for one run, or says one is already running.
func (s *Syncer) begin(by string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.progress.State == SyncRunning {
		return ErrSyncRunning
	}
	s.progress = Progress{State: SyncRunning, Phase: PhaseBills, By: by, StartedAt: s.now()}
	s.done = make(chan struct{})
	return nil
}

func (s *Syncer) finish(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.progress.FinishedAt = s.now()
	if err != nil {
		s.progress.State, s.progress.Err = SyncFailed, err
	} else {
		s.progress.State = SyncDone
	}
	close(s.done)
}

// Sync runs the job in the background, detached from the caller's request but not from
// the worker (Start, Stop); it returns ErrSyncRunning when a run is already under way and
// ErrStopped when the worker is not running.
func (s *Syncer) Sync(by string) error {
	s.mu.Lock()
	base := s.ctx
	s.mu.Unlock()
	if base == nil || base.Err() != nil {
		return ErrStopped
	}
	if err := s.begin(by); err != nil {
		return err
	}
	go func() {
		limit := s.RunLimit
		if limit <= 0 {
			limit = DefaultRunLimit
		}
		ctx, cancel := context.WithTimeout(base, limit)
		defer cancel()
		s.finish(s.run(ctx))
	}()
	return nil
}

// Run runs the job and waits for it; it returns ErrSyncRunning when a run is already
// under way, else the run's progress and what stopped it early.
func (s *Syncer) Run(ctx context.Context, by string) (Progress, error) {
	if err := s.begin(by); err != nil {
		return s.Progress(), err
	}
	err := s.run(ctx)
	s.finish(err)
	return s.Progress(), err
}

// Wait blocks until the current run (if any) ends or ctx is done.
func (s *Syncer) Wait(ctx context.Context) error {
	s.mu.Lock()
	done := s.done
	s.mu.Unlock()
	if done == nil {
		return nil
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// fetchBatch is how many fetched students are written to the roster per transaction.
const fetchBatch = 100

func (s *Syncer) run(ctx context.Context) error {
	loc := s.Location
	if loc == nil {
		loc = time.UTC
	}
	now := s.now()
	today := now.In(loc)

	// 1. Every bill, grouped by NIS. A failed walk stops here: totals from part of the
	// bills would be wrong, so nothing is written.
	totals := map[string]*Totals{}
	names := map[string]string{}
	read := 0
	for b, err := range s.Billing.All(ctx, billing.Query{}) {
		if err != nil {
			return fmt.Errorf("students: sync: read bills: %w", err)
		}
		read++
		t := totals[b.NIS]
		if t == nil {
			t = &Totals{}
			totals[b.NIS] = t
			names[b.NIS] = b.StudentName
		}
		t.Add(b, today)
		if read%500 == 0 {
			n := len(totals)
			s.update(func(p *Progress) { p.BillsRead, p.Students = read, n })
		}
	}
	billed := make([]string, 0, len(totals))
	for nis := range totals {
		billed = append(billed, nis)
	}
	sort.Strings(billed)
	s.update(func(p *Progress) { p.BillsRead, p.Students, p.Phase = read, len(billed), PhaseStudents })

	// 2. Which students to fetch: billed ones the roster lacks, and stale roster entries.
	known, err := s.DB.StudentsByNIS(ctx, billed)
	if err != nil {
		return fmt.Errorf("students: sync: %w", err)
	}
	refreshAfter := s.RefreshAfter
	if refreshAfter <= 0 {
		refreshAfter = DefaultRefreshAfter
	}
	stale := func(st store.Student) bool { return now.Sub(st.SyncedAt) >= refreshAfter }
	type job struct {
		nis    string
		exists bool // in the roster already
		billed bool
	}
	var jobs []job
	for _, nis := range billed {
		st, ok := known[nis]
		if !ok || stale(st) {
			jobs = append(jobs, job{nis: nis, exists: ok, billed: true})
		}
	}
	var unbilled []string // roster entries without any bill: their totals are zero
	err = s.DB.AllStudents(ctx, func(st store.Student) error {
		if _, ok := totals[st.NIS]; !ok {
			unbilled = append(unbilled, st.NIS)
			if stale(st) {
				jobs = append(jobs, job{nis: st.NIS, exists: true})
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("students: sync: %w", err)
	}
	s.update(func(p *Progress) { p.ToFetch = len(jobs) })

	// 3. Fetch them, a few at a time; write them to the roster in batches.
	type result struct {
		job
		student billing.Student
		err     error
	}
	results := make(chan result)
	g, gctx := errgroup.WithContext(ctx)
	conc := s.Concurrency
	if conc <= 0 {
		conc = DefaultConcurrency
	}
	g.SetLimit(conc)
	go func() {
		for _, j := range jobs {
			g.Go(func() error {
				st, err := s.Billing.Student(gctx, j.nis)
				select {
				case results <- result{job: j, student: st, err: err}:
				case <-gctx.Done():
				}
				return nil
			})
		}
		_ = g.Wait()
		close(results)
	}()
	var batch []billing.Student
	var batchAdded, batchRefreshed int
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if err := Mirror(ctx, s.DB, batch, store.SourceSync, now); err != nil {
			return fmt.Errorf("students: sync: %w", err)
		}
		a, r := batchAdded, batchRefreshed
		s.update(func(p *Progress) { p.Added += a; p.Refreshed += r })
		batch, batchAdded, batchRefreshed = batch[:0], 0, 0
		return nil
	}
	var loopErr error
	fetched := map[string]bool{}
	for res := range results {
		if loopErr != nil {
			continue // drain, so the fetchers can finish
		}
		switch {
		case res.err == nil:
			st := res.student
			if st.NIS == "" {
				st.NIS = res.nis
			}
			if st.Name == "" {
				st.Name = names[res.nis]
			}
			fetched[res.nis] = true
			batch = append(batch, st)
			if res.exists {
				batchRefreshed++
			} else {
				batchAdded++
			}
			if len(batch) >= fetchBatch {
				loopErr = flush()
			}
		case errors.Is(res.err, billing.ErrNotFound) && res.exists && !res.billed:
			// The service no longer has this student (and they have no bills): the roster
			// mirrors the service, so the entry goes.
			if err := s.DB.DeleteStudent(ctx, res.nis); err != nil {
				loopErr = fmt.Errorf("students: sync: %w", err)
				break
			}
			s.update(func(p *Progress) { p.Removed++ })
		default:
			s.logger().Warn("roster sync: fetch student", "nis", res.nis, "err", res.err)
			e := res.err
			s.update(func(p *Progress) { p.Failures++; p.Err = e })
		}
		s.update(func(p *Progress) { p.Fetched++ })
	}
	if loopErr != nil {
		return loopErr
	}
	if err := flush(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("students: sync: %w", err)
	}

	// 4. Totals, for every roster entry: from its bills, or zero without any.
	s.update(func(p *Progress) { p.Phase = PhaseTotals })
	written := 0
	for _, nis := range billed {
		if _, ok := known[nis]; !ok && !fetched[nis] {
			continue // not in the roster: its fetch failed
		}
		t := totals[nis]
		if err := s.DB.SetStudentTotals(ctx, nis, t.Outstanding, t.Overdue, now); err != nil {
			return fmt.Errorf("students: sync: %w", err)
		}
		written++
	}
	for _, nis := range unbilled {
		if err := s.DB.SetStudentTotals(ctx, nis, 0, 0, now); err != nil {
			return fmt.Errorf("students: sync: %w", err)
		}
		written++
	}
	s.update(func(p *Progress) { p.Totals = written })
	return nil
}
