package corrections

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/changes"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/jobs"
	"github.com/sekolah/portal/internal/store"
)

// Config shapes the runner.
type Config struct {
	// ChunkSize is how many items one chunk holds: a cancel sends a chunk in one call.
	ChunkSize int
	// LeaseTTL is how long a job's lease lasts unless renewed every LeaseRenew; a job
	// whose instance died is taken up by another once it lapses. LeaseRenew is also how
	// often the runner looks for jobs made on other instances.
	LeaseTTL, LeaseRenew time.Duration
	// RetryBase and RetryMax bound the pause before trying again while the service fails
	// (doubling from RetryBase, at most RetryMax: 500ms and 15s); WaitMax the pause while
	// it does not answer at all (growing from RetryMax to 5 minutes). A correction job
	// waits for the service as long as it takes, saying since when.
	RetryBase, RetryMax, WaitMax time.Duration
	// Settle is how long a call that ended without an answer (timed out, cut by a stop,
	// or left by a process that died) is given to land at the service before its items
	// are read there (default 15s, the client's timeout): read sooner, a change still on
	// its way looks unapplied and would be sent a second time.
	Settle time.Duration
	// Clock is the portal's clock (required: NewRunner refuses the zero Clock).
	Clock clock.Clock
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
	// RetryBase, RetryMax, WaitMax and Settle left zero take the job engine's defaults
	// (internal/jobs).
}

// Runner is the worker that runs correction jobs, one at a time, under each job's lease
// in the database (internal/jobs): only the instance holding it sends, and a job left by
// a stopped or dead instance is taken up again (items without an answer are read at the
// service before anything is sent again).
type Runner struct {
	cfg   Config
	db    *store.DB
	steps Steps
	log   *slog.Logger
	jobs  *jobs.Runner
}

// NewRunner builds a runner; nothing runs until Start. Its changes go through writer
// (whose client is the service's).
func NewRunner(cfg Config, db *store.DB, writer *changes.Writer, log *slog.Logger) *Runner {
	cfg.defaults()
	cfg.Clock.Zone() // the zero Clock panics here, not in the job loop
	if log == nil {
		log = slog.Default()
	}
	r := &Runner{cfg: cfg, db: db, steps: Steps{Writer: writer, Clock: cfg.Clock}, log: log}
	r.jobs = jobs.NewRunner(jobs.RunnerConfig{
		Engine:   jobs.Config{RetryBase: cfg.RetryBase, RetryMax: cfg.RetryMax, WaitMax: cfg.WaitMax, Settle: cfg.Settle},
		Classify: jobs.BillingFault, Clock: cfg.Clock, Log: log,
		Leases: db.JobLeases(store.CorrectionJobsTable), Owner: store.NewID(), LeaseTTL: cfg.LeaseTTL, LeaseRenew: cfg.LeaseRenew,
		Next: r.next, Run: r.run})
	return r
}

// ErrStopped is Submit's answer when the runner no longer runs.
var ErrStopped = errors.New("corrections: the runner is not running")

// ErrAlreadyUndone is Submit's answer to a second undo of the same upload.
var ErrAlreadyUndone = errors.New("corrections: the upload was already undone")

// Start starts the job loop; jobs left running by a previous process are resumed.
func (r *Runner) Start(ctx context.Context) error {
	if err := r.jobs.Start(ctx); err != nil {
		return fmt.Errorf("corrections: %w", err)
	}
	return nil
}

// Stop stops taking work, waits for the call in flight (until ctx ends: then it is
// aborted, and its items are read at the service at the next start) and releases the
// job's lease.
func (r *Runner) Stop(ctx context.Context) error { return r.jobs.Stop(ctx) }

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
	r.jobs.Wake()
	return j.ID, nil
}

// next lists the jobs to run, oldest first.
func (r *Runner) next(ctx context.Context) ([]string, error) {
	list, err := r.db.CorrectionJobsInStates(ctx, StateQueued, StateRunning)
	ids := make([]string, len(list))
	for i, j := range list {
		ids[i] = j.ID
	}
	return ids, err
}

func actorOf(j store.CorrectionJob) auth.Actor {
	return auth.Actor{ID: j.ActorID, Username: j.Actor, Role: auth.Role(j.ActorRole), IP: j.ActorIP}
}

// run sends every chunk still to be sent and finishes the job. Stopping (ctx ends)
// leaves it where it is: the next start, here or elsewhere, goes on.
func (r *Runner) run(ctx context.Context, id string) error {
	j, err := r.db.CorrectionJobByID(ctx, id)
	if err != nil {
		return err
	}
	if err := r.db.SetCorrectionJobState(ctx, j.ID, StateRunning, false); err != nil {
		return err
	}
	var finished bool
	if j.Kind == KindReplace {
		finished, err = r.runReplacement(ctx, j)
	} else {
		finished, err = r.jobs.Engine.Run(ctx, j.ID, &job{r: r, j: j, actor: actorOf(j)})
	}
	if err != nil || !finished {
		return err
	}
	if j, err = r.db.CorrectionJobByID(ctx, j.ID); err != nil {
		return err
	}
	if open, err := r.db.CorrectionOpenChunks(ctx, j.ID); err != nil || len(open) > 0 {
		// An item still without an answer (the service could not be read): the loop takes
		// the job up again after a pause.
		return errors.Join(err, fmt.Errorf("corrections: job %s: %d chunks still open", j.ID, len(open)))
	}
	state := StateDone
	if j.Failed > 0 {
		state = StatePartial
	}
	if j.Kind == KindReplace {
		if state, err = r.endReplacement(ctx, j); err != nil {
			return err
		}
	}
	r.log.Info("correction job finished", "job", j.ID, "done", j.Done, "skipped", j.Skipped, "failed", j.Failed)
	return r.db.SetCorrectionJobState(ctx, j.ID, state, true)
}

// job is a correction job as the engine runs it: its items in chunks (correction_items),
// sent through the correction steps as the person who asked for it.
type job struct {
	r     *Runner
	j     store.CorrectionJob
	actor auth.Actor
}

// OpenChunks implements jobs.Store.
func (c *job) OpenChunks(ctx context.Context, id string) ([]int, error) {
	if c.j.Kind == KindReplace {
		return c.replaceOpenChunks(ctx, id)
	}
	return c.r.db.CorrectionOpenChunks(ctx, id)
}

// LoadChunk implements jobs.Store: the chunk's items as they are kept; the chunk is
// unknown when one of them was sent without an answer, since the last of their times.
func (c *job) LoadChunk(ctx context.Context, id string, seq int) (*jobs.Chunk, error) {
	items, err := c.r.db.CorrectionChunk(ctx, id, seq)
	if err != nil {
		return nil, err
	}
	ch := &jobs.Chunk{Job: id, Seq: seq, State: jobs.ChunkPending, OneByOne: c.j.Kind == KindUpdate, Items: make([]jobs.Item, len(items)),
		Data: items}
	for i, it := range items {
		ch.Items[i] = jobs.Item{Key: it.Seq, State: jobs.State(it.State), Problem: problemOf(it.Problem)}
		if it.State == ItemSent {
			ch.State = jobs.ChunkUnknown
			if it.UpdatedAt.After(ch.SentAt) {
				ch.SentAt = it.UpdatedAt
			}
		}
	}
	return ch, nil
}

// SaveChunk implements jobs.Store: the changed items, by state and problem; one sent
// carries the chunk's time (when its call left, or ended without an answer).
func (c *job) SaveChunk(ctx context.Context, ch *jobs.Chunk) error {
	for _, g := range ch.Changed(problemText, c.r.cfg.Clock.Now()) {
		if err := c.r.db.SetCorrectionItems(ctx, ch.Job, g.Keys, string(g.State), g.Problem, g.At); err != nil {
			return err
		}
	}
	return nil
}

// Waiting implements jobs.Store: a correction job waits without a person's hurry.
func (c *job) Waiting(ctx context.Context, id string) (since, hurry time.Time, err error) {
	j, err := c.r.db.CorrectionJobByID(ctx, id)
	return j.WaitingSince, time.Time{}, err
}

// SetWaiting implements jobs.Store.
func (c *job) SetWaiting(ctx context.Context, id string, since time.Time) error {
	return c.r.db.SetCorrectionWaiting(ctx, id, since)
}

// item is the stored item behind it.
func item(ch *jobs.Chunk, it *jobs.Item) store.CorrectionItem {
	for _, s := range ch.Data.([]store.CorrectionItem) {
		if s.Seq == it.Key {
			return s
		}
	}
	return store.CorrectionItem{}
}

// Send implements jobs.Steps: a chunk of cancels in one call, an update by itself.
func (c *job) Send(ctx context.Context, ch *jobs.Chunk, items []*jobs.Item) error {
	if c.j.Kind == KindReplace {
		return c.sendReplace(ctx, ch, items)
	}
	detail := "correction " + c.j.ID + " chunk " + strconv.Itoa(ch.Seq)
	if c.j.Kind == KindCancel {
		ids := make([]string, len(items))
		for i, it := range items {
			ids[i] = item(ch, it).ComponentID
		}
		return c.r.steps.CancelComponents(ctx, c.actor, ids, c.j.Reason, detail)
	}
	it := item(ch, items[0])
	u, err := decodeUpdate(it.Payload)
	if err != nil {
		return err
	}
	return c.r.steps.UpdateComponent(ctx, c.actor, it.ComponentID, u, detail)
}

// Check implements jobs.Steps: each item's component read at the service.
func (c *job) Check(ctx context.Context, ch *jobs.Chunk, items []*jobs.Item) error {
	if c.j.Kind == KindReplace {
		return c.checkReplace(ctx, ch, items)
	}
	for _, it := range items {
		s := item(ch, it)
		var d jobs.Decision
		var err error
		if c.j.Kind == KindCancel {
			d, err = c.r.steps.CheckCancel(ctx, s.ComponentID)
		} else {
			var u billing.ComponentUpdate
			if u, err = decodeUpdate(s.Payload); err == nil {
				d, err = c.r.steps.CheckUpdate(ctx, s.ComponentID, u)
			}
		}
		if err != nil {
			return err
		}
		if d.State != jobs.Pending {
			ch.Decide(it, d)
		}
	}
	return nil
}

// Refused implements jobs.Steps: a refusal is explained by the components' records (paid
// or cancelled meanwhile), else the items fail with the service's words.
func (c *job) Refused(ctx context.Context, ch *jobs.Chunk, items []*jobs.Item, _ error) error {
	if c.j.Kind == KindReplace {
		return c.refusedReplace(ctx, ch, items)
	}
	return c.Check(ctx, ch, items)
}

// problemText is an item's problem as kept: a catalogue key, or the service's own words.
func problemText(p jobs.Problem) string {
	switch p.Code {
	case "":
		return ""
	case jobs.ProblemRefused:
		return p.Arg
	case jobs.ProblemUnsent:
		return "corrections.problem." + p.Arg
	}
	return p.Code
}

// problemOf reads what problemText kept.
func problemOf(s string) jobs.Problem {
	switch {
	case s == "":
		return jobs.Problem{}
	case strings.HasPrefix(s, "corrections."):
		return jobs.Problem{Code: s}
	}
	return jobs.Problem{Code: jobs.ProblemRefused, Arg: s}
}
