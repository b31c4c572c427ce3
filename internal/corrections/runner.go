package corrections

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/changes"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/store"
)

// Config shapes the runner.
type Config struct {
	// Clock is the portal's clock (internal/app sets it; required): leases, waits and the
	// items' times.
	Clock clock.Clock
	// ChunkSize is how many items one chunk holds: a cancel sends a chunk in one call.
	ChunkSize int
	// LeaseTTL is how long a job's lease lasts unless renewed every LeaseRenew; a job
	// whose instance died is taken up by another once it lapses. LeaseRenew is also how
	// often the runner looks for jobs made on other instances.
	LeaseTTL, LeaseRenew time.Duration
	// RetryBase and RetryMax bound the pause before trying again while the service does
	// not answer (doubling from RetryBase, at most RetryMax).
	RetryBase, RetryMax time.Duration
	// Settle is how long a call that ended without an answer (timed out, cut by a stop,
	// or left by a process that died) is given to land at the service before its items
	// are read there (default 15s, the client's timeout): read sooner, a change still on
	// its way looks unapplied and would be sent a second time.
	Settle time.Duration
}

func (c *Config) defaults() {
	if c.ChunkSize <= 0 {
		c.ChunkSize = 50
	}
	if c.LeaseTTL <= 0 {
		c.LeaseTTL = 30 * time.Second
	}
	if c.LeaseRenew <= 0 {
		c.LeaseRenew = c.LeaseTTL / 3
	}
	if c.RetryBase <= 0 {
		c.RetryBase = 500 * time.Millisecond
	}
	if c.RetryMax <= 0 {
		c.RetryMax = 2 * time.Minute
	}
	if c.Settle <= 0 {
		c.Settle = billing.DefaultTimeout
	}
}

// Runner is the worker that runs correction jobs, one at a time, under each job's lease
// in the database: only the instance holding it sends, and a job left by a stopped or
// dead instance is taken up again (items without an answer are read at the service
// before anything is sent again).
type Runner struct {
	cfg    Config
	owner  string
	db     *store.DB
	client *billing.Client
	writer *changes.Writer
	log    *slog.Logger

	mu      sync.Mutex
	started bool
	stopped bool
	ctx     context.Context
	cancel  context.CancelFunc
	quit    chan struct{}
	wake    chan struct{}
	wg      sync.WaitGroup
}

// NewRunner builds a runner; nothing runs until Start.
func NewRunner(cfg Config, db *store.DB, client *billing.Client, writer *changes.Writer, log *slog.Logger) *Runner {
	cfg.defaults()
	if cfg.Clock.IsZero() {
		panic("corrections: NewRunner without a clock (Config.Clock: internal/app hands every worker the portal's)")
	}
	if log == nil {
		log = slog.Default()
	}
	return &Runner{cfg: cfg, owner: store.NewID(), db: db, client: client, writer: writer, log: log,
		quit: make(chan struct{}), wake: make(chan struct{}, 1)}
}

// ErrStopped is Submit's answer when the runner no longer runs.
var ErrStopped = errors.New("corrections: the runner is not running")

// ErrAlreadyUndone is Submit's answer to a second undo of the same upload.
var ErrAlreadyUndone = errors.New("corrections: the upload was already undone")

// Start starts the job loop; jobs left running by a previous process are resumed.
func (r *Runner) Start(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.started {
		return errors.New("corrections: runner already started")
	}
	r.started = true
	r.ctx, r.cancel = context.WithCancel(context.WithoutCancel(ctx))
	r.wg.Add(1)
	go r.loop()
	return nil
}

// Stop stops taking work, waits for the call in flight (until ctx ends: then it is
// aborted, and its items are read at the service at the next start) and releases the
// job's lease.
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

// Submit stores a job with its items, cut into chunks, and wakes the loop. A second undo
// of one upload is ErrAlreadyUndone.
func (r *Runner) Submit(ctx context.Context, req Request) (string, error) {
	j := store.CorrectionJob{ID: store.NewID(), Kind: req.Kind, Source: req.Source, UploadID: req.UploadID, Field: req.Field,
		Value: req.Value, Reason: req.Reason, Selection: req.Selection, State: StateQueued, ActorID: req.Actor.ID,
		Actor: req.Actor.Username, ActorRole: string(req.Actor.Role), ActorIP: req.Actor.IP, LeftOut: req.LeftOut,
		AmountBefore: req.AmountBefore, AmountAfter: req.AmountAfter}
	items := make([]store.CorrectionItem, len(req.Items))
	for i, it := range req.Items {
		b := it.Component
		items[i] = store.CorrectionItem{Seq: i, Chunk: i / r.cfg.ChunkSize, ComponentID: b.ComponentID, NIS: b.NIS,
			StudentName: b.StudentName, Name: b.Name, Amount: b.Amount, State: ItemPending}
		if req.Kind == KindUpdate {
			items[i].Payload = encodeUpdate(it.Update)
		}
		if it.Skip != "" {
			items[i].State, items[i].Problem = ItemSkipped, it.Skip
		}
	}
	if err := r.db.CreateCorrectionJob(ctx, j, items); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return "", ErrAlreadyUndone
		}
		return "", fmt.Errorf("corrections: submit: %w", err)
	}
	r.wakeUp()
	return j.ID, nil
}

func (r *Runner) wakeUp() {
	select {
	case r.wake <- struct{}{}:
	default:
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

// idle waits for a wake-up, LeaseRenew, or the stop; false when stopping.
func (r *Runner) idle() bool {
	t := time.NewTimer(r.cfg.LeaseRenew)
	defer t.Stop()
	select {
	case <-r.wake:
	case <-t.C:
	case <-r.quit:
		return false
	}
	return true
}

// loop runs jobs, oldest first, one at a time, until the runner stops.
func (r *Runner) loop() {
	defer r.wg.Done()
	for !r.quitting() {
		jobs, err := r.db.CorrectionJobsInStates(r.ctx, StateQueued, StateRunning)
		if err != nil {
			r.log.Error("correction jobs", "err", err)
			if !r.idle() {
				return
			}
			continue
		}
		ran := false
		for _, j := range jobs {
			now := r.cfg.Clock.Now()
			ok, err := r.db.ClaimCorrectionJob(r.ctx, j.ID, r.owner, now.Add(r.cfg.LeaseTTL), now)
			if err != nil {
				r.log.Error("correction job: claim", "job", j.ID, "err", err)
				break
			}
			if !ok {
				continue // another instance runs it
			}
			ran = true
			if err := r.runLeased(j); err != nil && r.ctx.Err() == nil && !r.quitting() {
				r.log.Error("correction job", "job", j.ID, "err", err)
			}
			break
		}
		if !ran && !r.idle() {
			return
		}
	}
}

// runLeased runs a job whose lease the runner holds, renewing it, and releases it at the
// end; a lost lease cancels the job's work here.
func (r *Runner) runLeased(j store.CorrectionJob) error {
	ctx, cancel := context.WithCancel(r.ctx)
	defer cancel()
	renewed := make(chan struct{})
	go func() {
		defer close(renewed)
		t := time.NewTicker(r.cfg.LeaseRenew)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			ok, err := r.db.RenewCorrectionJob(ctx, j.ID, r.owner, r.cfg.Clock.Now().Add(r.cfg.LeaseTTL))
			if err == nil && !ok {
				r.log.Error("correction job: lease taken by another instance; stopping it here", "job", j.ID)
				cancel()
				return
			}
		}
	}()
	err := r.run(ctx, j)
	cancel()
	<-renewed
	rctx, rcancel := context.WithTimeout(context.WithoutCancel(r.ctx), 5*time.Second)
	defer rcancel()
	if rerr := r.db.ReleaseCorrectionJob(rctx, j.ID, r.owner); rerr != nil {
		r.log.Error("correction job: release lease", "job", j.ID, "err", rerr)
	}
	return err
}

func actorOf(j store.CorrectionJob) auth.Actor {
	return auth.Actor{ID: j.ActorID, Username: j.Actor, Role: auth.Role(j.ActorRole), IP: j.ActorIP}
}

// run sends every chunk still to be sent and finishes the job. Stopping (ctx ends)
// leaves it where it is: the next start, here or elsewhere, goes on.
func (r *Runner) run(ctx context.Context, j store.CorrectionJob) error {
	if err := r.db.SetCorrectionJobState(ctx, j.ID, StateRunning, false); err != nil {
		return err
	}
	items, err := r.db.CorrectionItems(ctx, j.ID, ItemPending, ItemSent)
	if err != nil {
		return err
	}
	for start := 0; start < len(items); {
		end := start
		for end < len(items) && items[end].Chunk == items[start].Chunk {
			end++
		}
		if err := r.runChunk(ctx, j, items[start:end]); err != nil {
			return err
		}
		start = end
	}
	j, err = r.db.CorrectionJobByID(ctx, j.ID)
	if err != nil {
		return err
	}
	state := StateDone
	if j.Failed > 0 {
		state = StatePartial
	}
	r.log.Info("correction job finished", "job", j.ID, "done", j.Done, "skipped", j.Skipped, "failed", j.Failed)
	return r.db.SetCorrectionJobState(ctx, j.ID, state, true)
}

// errDown says the service did not answer: the chunk waits and tries again.
var errDown = errors.New("corrections: the billing service does not answer")

// runChunk takes one chunk's items to an end: items sent without an answer are read at
// the service first (applied: done; paid or cancelled meanwhile: skipped), the rest are
// sent; while the service does not answer the chunk waits, for as long as it takes.
func (r *Runner) runChunk(ctx context.Context, j store.CorrectionJob, items []store.CorrectionItem) error {
	detail := "correction " + j.ID + " chunk " + strconv.Itoa(items[0].Chunk)
	attempt := 0
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := r.reconcile(ctx, j, items)
		if err == nil {
			var todo []*store.CorrectionItem
			for i := range items {
				if items[i].State == ItemPending {
					todo = append(todo, &items[i])
				}
			}
			if len(todo) == 0 {
				return r.db.SetCorrectionWaiting(ctx, j.ID, time.Time{})
			}
			if j.Kind == KindCancel {
				err = r.sendCancel(ctx, j, todo, detail)
			} else {
				err = r.sendUpdates(ctx, j, todo, detail)
			}
		}
		switch {
		case err == nil:
			attempt = 0
		case errors.Is(err, errDown):
			if werr := r.wait(ctx, j, attempt); werr != nil {
				return werr
			}
			attempt++
		default:
			return err
		}
	}
}

// wait pauses before trying again, recording since when the job waits for the service.
func (r *Runner) wait(ctx context.Context, j store.CorrectionJob, attempt int) error {
	if attempt == 2 {
		if err := r.db.SetCorrectionWaiting(ctx, j.ID, r.cfg.Clock.Now()); err != nil {
			return err
		}
		r.log.Warn("correction job: the billing service does not answer; waiting for it", "job", j.ID)
	}
	d := r.cfg.RetryMax
	if attempt < 20 {
		d = min(r.cfg.RetryBase<<attempt, r.cfg.RetryMax)
	}
	d = d/2 + rand.N(d/2+1)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// set moves items to state with problem, in the database and in memory.
func (r *Runner) set(ctx context.Context, j store.CorrectionJob, items []*store.CorrectionItem, state, problem string) error {
	seqs := make([]int, len(items))
	now := store.Time(r.cfg.Clock.Now())
	for i, it := range items {
		seqs[i] = it.Seq
		it.State, it.Problem, it.UpdatedAt = state, problem, now
	}
	return r.db.SetCorrectionItems(ctx, j.ID, seqs, state, problem)
}

// unanswered notes that the call sending items ended without an answer: they stay sent
// and are read at the service once Settle has passed from now. Noted even while the
// runner stops, since the next start reads them too.
func (r *Runner) unanswered(ctx context.Context, j store.CorrectionJob, items []*store.CorrectionItem) error {
	seqs := make([]int, len(items))
	now := store.Time(r.cfg.Clock.Now())
	for i, it := range items {
		seqs[i] = it.Seq
		it.UpdatedAt = now
	}
	return r.db.MarkCorrectionItemsUnanswered(context.WithoutCancel(ctx), j.ID, seqs, now)
}

// settle waits until a call about it that ended without an answer can no longer land
// at the service; false when ctx ends first.
func (r *Runner) settle(ctx context.Context, it store.CorrectionItem) bool {
	wait := it.UpdatedAt.Add(r.cfg.Settle).Sub(r.cfg.Clock.Now())
	if wait <= 0 {
		return true
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// reconcile reads each item sent without an answer at the service, once its call can
// no longer land (Settle), and decides it: the change is there (done), the component was
// paid or cancelled meanwhile (skipped), or it is to be sent again (pending). errDown
// when the service does not answer a read.
func (r *Runner) reconcile(ctx context.Context, j store.CorrectionJob, items []store.CorrectionItem) error {
	for i := range items {
		it := &items[i]
		if it.State != ItemSent {
			continue
		}
		if !r.settle(ctx, *it) {
			return ctx.Err()
		}
		b, err := r.client.GetComponent(ctx, it.ComponentID)
		switch {
		case errors.Is(err, billing.ErrNotFound):
			if err := r.set(ctx, j, []*store.CorrectionItem{it}, ItemFailed, ProblemNotFound); err != nil {
				return err
			}
			continue
		case err != nil && ctx.Err() != nil:
			return ctx.Err()
		case err != nil:
			r.log.Warn("correction job: read a component sent without an answer", "job", j.ID, "component", it.ComponentID, "err", err)
			return errDown
		}
		state, problem, err := decide(j.Kind, *it, b)
		if err != nil {
			return err
		}
		if err := r.set(ctx, j, []*store.CorrectionItem{it}, state, problem); err != nil {
			return err
		}
	}
	return nil
}

// The problems an item keeps (catalogue keys, worded on the job's page).
const (
	ProblemPaid     = KeyPaid
	ProblemDeleted  = KeyDeleted
	ProblemNotFound = "corrections.problem.not_found"
)

// decide is what the service's record b says about item it of a job of kind.
func decide(kind string, it store.CorrectionItem, b billing.Bill) (state, problem string, err error) {
	if kind == KindCancel {
		switch b.State {
		case billing.StateDeleted:
			return ItemDone, "", nil // cancelled: by this job, or before it; either way the goal holds
		case billing.StatePaid:
			return ItemSkipped, ProblemPaid, nil
		}
		return ItemPending, "", nil
	}
	u, err := decodeUpdate(it.Payload)
	if err != nil {
		return "", "", err
	}
	switch {
	case b.State == billing.StatePaid:
		return ItemSkipped, ProblemPaid, nil
	case b.State == billing.StateDeleted:
		return ItemSkipped, ProblemDeleted, nil
	case Applied(b, u):
		return ItemDone, "", nil
	}
	return ItemPending, "", nil
}

// refusal is the item's problem when the service refused it: its words, kept as they are.
func refusal(err error) string {
	var apiErr *billing.APIError
	if errors.As(err, &apiErr) && apiErr.StatusDesc != "" {
		return apiErr.StatusDesc
	}
	return err.Error()
}

// sendCancel cancels the chunk's pending items in one call (all or none at the service).
func (r *Runner) sendCancel(ctx context.Context, j store.CorrectionJob, todo []*store.CorrectionItem, detail string) error {
	if err := r.set(ctx, j, todo, ItemSent, ""); err != nil {
		return err
	}
	ids := make([]string, len(todo))
	for i, it := range todo {
		ids[i] = it.ComponentID
	}
	_, err := r.writer.CancelComponents(ctx, actorOf(j), ids, j.Reason, detail)
	switch {
	case err == nil:
		return r.set(ctx, j, todo, ItemDone, "")
	case ctx.Err() != nil:
		return errors.Join(ctx.Err(), r.unanswered(ctx, j, todo)) // left sent: read at the next start
	case changes.Ambiguous(err):
		return r.unanswered(ctx, j, todo) // left sent: reconcile reads them before anything is sent again
	case errors.Is(err, billing.ErrUnavailable) || errors.Is(err, billing.ErrUnauthorized):
		if err := r.set(ctx, j, todo, ItemPending, ""); err != nil {
			return err
		}
		return errDown
	}
	// Refused (all or none): one was paid or cancelled meanwhile, or something else is
	// wrong. Read them: the paid are left out, the cancelled done, and the rest sent again
	// without them; when nothing explains it, the rest fail with the service's words.
	changed := false
	for _, it := range todo {
		b, gerr := r.client.GetComponent(ctx, it.ComponentID)
		if gerr != nil {
			if errors.Is(gerr, billing.ErrNotFound) {
				changed = true
				if err := r.set(ctx, j, []*store.CorrectionItem{it}, ItemFailed, ProblemNotFound); err != nil {
					return err
				}
				continue
			}
			return errDown // still sent: reconcile reads it again
		}
		state, problem, derr := decide(j.Kind, *it, b)
		if derr != nil {
			return derr
		}
		changed = changed || state != ItemPending
		if err := r.set(ctx, j, []*store.CorrectionItem{it}, state, problem); err != nil {
			return err
		}
	}
	if !changed {
		var rest []*store.CorrectionItem
		for _, it := range todo {
			if it.State == ItemPending {
				rest = append(rest, it)
			}
		}
		return r.set(ctx, j, rest, ItemFailed, refusal(err))
	}
	return nil
}

// sendUpdates sends the chunk's pending updates one by one (the service has no batch
// update); each is marked sent before it leaves.
func (r *Runner) sendUpdates(ctx context.Context, j store.CorrectionJob, todo []*store.CorrectionItem, detail string) error {
	for _, it := range todo {
		u, err := decodeUpdate(it.Payload)
		if err != nil {
			return err
		}
		if err := r.set(ctx, j, []*store.CorrectionItem{it}, ItemSent, ""); err != nil {
			return err
		}
		_, err = r.writer.UpdateComponent(ctx, actorOf(j), it.ComponentID, u, detail)
		switch {
		case err == nil:
			if err := r.set(ctx, j, []*store.CorrectionItem{it}, ItemDone, ""); err != nil {
				return err
			}
			continue
		case ctx.Err() != nil:
			return errors.Join(ctx.Err(), r.unanswered(ctx, j, []*store.CorrectionItem{it}))
		case changes.Ambiguous(err):
			return r.unanswered(ctx, j, []*store.CorrectionItem{it}) // left sent: reconcile reads it first
		case errors.Is(err, billing.ErrUnavailable) || errors.Is(err, billing.ErrUnauthorized):
			if err := r.set(ctx, j, []*store.CorrectionItem{it}, ItemPending, ""); err != nil {
				return err
			}
			return errDown
		}
		// Refused: paid or cancelled meanwhile is left alone with why; else it fails with
		// the service's words.
		b, gerr := r.client.GetComponent(ctx, it.ComponentID)
		if gerr != nil && !errors.Is(gerr, billing.ErrNotFound) {
			return errDown // still sent: reconcile decides it
		}
		state, problem := ItemFailed, refusal(err)
		if gerr != nil {
			problem = ProblemNotFound
		} else if s, p, derr := decide(j.Kind, *it, b); derr == nil && s != ItemPending {
			state, problem = s, p
		}
		if err := r.set(ctx, j, []*store.CorrectionItem{it}, state, problem); err != nil {
			return err
		}
	}
	return nil
}
