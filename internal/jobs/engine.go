package jobs

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/clock"
)

// Store is how the engine reads and writes a kind's chunks and its job's wait for the
// service, in the kind's own tables.
type Store interface {
	// OpenChunks lists the job's chunks not yet confirmed or failed, in order.
	OpenChunks(ctx context.Context, job string) ([]int, error)
	// LoadChunk reads one chunk, its items in their states and what the kind needs to
	// send them (Chunk.Data). An item the kind keeps only as "sent with the chunk" is
	// loaded Sent: it is read at the service before anything is sent again.
	LoadChunk(ctx context.Context, job string, seq int) (*Chunk, error)
	// SaveChunk records the chunk's state and its changed items (Item.Changed), in one
	// transaction. It is called even while the worker stops: the state must say what
	// happened.
	SaveChunk(ctx context.Context, c *Chunk) error
	// Waiting is since when the job waits for the service (zero: it does not) and when a
	// person last asked it to try again now (zero: never).
	Waiting(ctx context.Context, job string) (since, hurry time.Time, err error)
	// SetWaiting records since when the job waits for the service (zero: it no longer does).
	SetWaiting(ctx context.Context, job string, since time.Time) error
}

// Steps are what a job kind adds to the engine: how its items are sent, how items sent
// without an answer are found at the service, and what a refusal means for each. Each
// decides items with Chunk.Decide; the engine does everything else (marking, saving,
// settling, retrying, waiting).
type Steps interface {
	// Send makes one call with items (the chunk's open items, or one of them when the
	// chunk is OneByOne), all marked sent and saved before it is called. A nil error makes
	// every item it did not decide done; the error's Fault decides the rest.
	Send(ctx context.Context, c *Chunk, items []*Item) error
	// Check reads at the service items that were sent without an answer, once Settle has
	// passed since the call ended, and decides each: Done (it is there: counted as
	// recognised), Skipped or Failed (it can no longer be sent, and why), or Pending (it
	// is not there: sent again). An item left Sent is Pending when Check returns nil and
	// read again when it returns an error.
	Check(ctx context.Context, c *Chunk, items []*Item) error
	// Refused decides the items of a call the service refused (err): those it names fail,
	// those found done meanwhile are done, and the others, left undecided, are sent again
	// (a batch is all or nothing). When it decides none, all fail with the service's words.
	Refused(ctx context.Context, c *Chunk, items []*Item, err error) error
}

// Apart is what a kind adds to its Steps when sending is a call and then writing what the
// service answered (the audit entry, the ledger). SendApart is Send without that writing:
// it makes the call and decides the items as Send does, and returns the writing (nil:
// none), which the engine runs once the call's slot is free for the next chunk, before it
// records the chunk. Concurrency then bounds the calls on the wire, not the chunks: one
// chunk's answer is written while the next chunk's call is out, and a chunk is recorded
// done only after its answer is written, as with Send.
type Apart interface {
	SendApart(ctx context.Context, c *Chunk, items []*Item) (after func(ctx context.Context), err error)
}

// Job is one job as the engine runs it: where its chunks and its wait are kept, and how
// its items are sent. A kind makes one per run, holding what its steps need (the job's
// record: who asked for it, what it sends).
type Job interface {
	Store
	Steps
}

// Config shapes the engine; a field left zero takes its default.
type Config struct {
	// Concurrency is the calls of a job in flight at once (default 1): as many chunks at
	// once, and as many more writing their answers when the kind sends Apart.
	Concurrency int
	// QuickTries is how many times a chunk's call is tried, with the short back-off,
	// before the engine decides the service is down and the job waits for it (default 3).
	QuickTries int
	// MaxAttempts caps a chunk's calls and checks in one run when the service answers with
	// errors (default 10); a chunk still unsent then is given up until a retry.
	MaxAttempts int
	// RetryBase and RetryMax bound the back-off between tries (half to all of
	// RetryBase·2^attempt, at most RetryMax; defaults 500ms and 15s).
	RetryBase, RetryMax time.Duration
	// WaitFor is how long a job waits for a service that stopped answering before its
	// unsent items are given up until a retry (0: as long as it takes).
	WaitFor time.Duration
	// WaitMax caps the pause between two tries while a job waits (default 5 minutes): the
	// pause grows from RetryMax up to it.
	WaitMax time.Duration
	// Settle is how long after a call ended without an answer (or left, when the process
	// died during it) the service is given before its items are read (default the billing
	// client's timeout): a request still on its way must land before we look, or it looks
	// unapplied and would be sent twice.
	Settle time.Duration
	// Look is how often a waiting job looks whether a person asked it to try again now
	// (default 10s; the kinds pass their lease's renewal).
	Look time.Duration
	// Pace, when set, is the least time between two calls of the engine (a service's rate
	// limit, shared by every chunk in flight; per instance: an engine paces its own calls).
	Pace time.Duration
}

// defaults fills the fields left zero.
func (c *Config) defaults() {
	c.Concurrency = cmp.Or(c.Concurrency, 1)
	c.QuickTries = cmp.Or(c.QuickTries, 3)
	c.MaxAttempts = cmp.Or(c.MaxAttempts, 10)
	c.RetryBase = cmp.Or(c.RetryBase, 500*time.Millisecond)
	c.RetryMax = cmp.Or(c.RetryMax, 15*time.Second)
	c.WaitMax = cmp.Or(c.WaitMax, 5*time.Minute)
	c.Settle = cmp.Or(c.Settle, billing.DefaultTimeout)
	c.Look = cmp.Or(c.Look, 10*time.Second)
}

// Engine takes a job's chunks to an end, each exactly once at the service across faults,
// restarts and instances: it marks items sent before their call leaves, waits Settle and
// reads the service (Steps.Check) before sending again anything sent without an answer,
// tries again with back-off when the service fails, and waits (for hours if need be) for
// a service that stopped answering, recording since when. Run it under the job's lease
// (Queue does).
type Engine struct {
	cfg      Config
	worker   *Worker
	classify Classify
	clock    clock.Clock
	log      *slog.Logger

	paceMu sync.Mutex
	every  time.Duration // Pace, as SetPace last set it
	next   time.Time     // when the next call may leave (Pace, a service's Later)

	// watched is told of the items sent and decided (the metrics: observe.go); set when
	// the runner starts with a Watcher.
	watched itemWatch
}

// NewEngine makes an engine for the jobs of one kind, run by worker; classify reads the
// service's errors (BillingFault for the payment service).
func NewEngine(cfg Config, worker *Worker, classify Classify, c clock.Clock, log *slog.Logger) *Engine {
	cfg.defaults()
	if log == nil {
		log = slog.Default()
	}
	return &Engine{cfg: cfg, worker: worker, classify: classify, clock: c, log: log, every: cfg.Pace}
}

// SetPace changes the least time between two calls (Config.Pace) from the next call on:
// a rate limit a person sets while the engine runs.
func (e *Engine) SetPace(d time.Duration) {
	e.paceMu.Lock()
	defer e.paceMu.Unlock()
	e.every = max(d, 0)
}

// Later is err, a failure after which the service asked to be left alone for d (a 429's
// Retry-After): the engine makes no call before d has passed, whatever its back-off.
func Later(err error, d time.Duration) error {
	if err == nil || d <= 0 {
		return err
	}
	return &later{err: err, d: d}
}

type later struct {
	err error
	d   time.Duration
}

func (l *later) Error() string { return l.err.Error() }
func (l *later) Unwrap() error { return l.err }

// holdOff keeps every call back until the wait a service asked for (Later) has passed.
func (e *Engine) holdOff(err error) {
	var l *later
	if !errors.As(err, &l) {
		return
	}
	e.paceMu.Lock()
	defer e.paceMu.Unlock()
	if at := e.clock.Now().Add(l.d); at.After(e.next) {
		e.next = at
	}
}

// Config is the engine's configuration after defaults.
func (e *Engine) Config() Config { return e.cfg }

// errDown is a chunk's way of saying the service stopped answering: the job waits for it.
var errDown = errors.New("jobs: the service does not answer")

func (e *Engine) stopping(ctx context.Context) bool { return e.worker.Quitting() || ctx.Err() != nil }

// Run takes the job's open chunks as far as they go: sent, Concurrency at a time; when the
// service stops answering, waited for (WaitFor), then the unsent items given up until a
// retry. finished is false when the run was cut short (the worker stops, the lease was
// lost): the job is then left as it is, for the next start or the instance holding it;
// true, the kind records the job's end (a chunk may still be unknown: read at the next run).
func (e *Engine) Run(ctx context.Context, job string, j Job) (finished bool, err error) {
	for attempt := 0; ; attempt++ {
		down, err := e.sendChunks(ctx, job, j)
		if err != nil {
			return false, err
		}
		if e.stopping(ctx) {
			return false, nil
		}
		if !down {
			break
		}
		again, err := e.waitForService(ctx, j, job, attempt)
		if err != nil {
			return false, err
		}
		if e.stopping(ctx) {
			return false, nil
		}
		if !again {
			if err := e.giveUp(ctx, j, job); err != nil {
				return false, err
			}
			break
		}
	}
	return true, e.stopWaiting(ctx, j, job)
}

// Try runs fn, a step of the job that asks the service something before it sends (a
// check of what exists by now), until it succeeds: a few quick tries, then, while the
// service does not answer, waiting for it as Run does. An error of the portal's own is
// returned at once, one the service keeps answering after MaxAttempts, and a service down
// for longer than WaitFor ends it with the last error.
func (e *Engine) Try(ctx context.Context, job string, j Store, fn func(ctx context.Context) error) error {
	waits := 0
	for attempt := 0; ; attempt++ {
		err := fn(ctx)
		if err == nil {
			return e.stopWaiting(ctx, j, job)
		}
		f, _ := e.classify(err)
		if f == Other || e.stopping(ctx) {
			return err
		}
		e.log.Warn("job: asking the service", "job", job, "attempt", attempt+1, "err", err)
		if (f == Down || f == NoAnswer) && attempt+1 >= e.cfg.QuickTries {
			again, werr := e.waitForService(ctx, j, job, waits)
			if werr != nil {
				return werr
			}
			if !again {
				return err
			}
			waits++
			continue
		}
		if attempt+1 >= e.cfg.MaxAttempts || !e.worker.Sleep(ctx, e.backoff(attempt)) {
			return err
		}
	}
}

// sendChunks processes the job's open chunks, Concurrency calls at a time (and as many
// more chunks writing their answers when the kind sends Apart); down reports that the
// service stopped answering (no more chunks were started then; those not sent stay open).
func (e *Engine) sendChunks(ctx context.Context, job string, j Job) (down bool, err error) {
	seqs, err := j.OpenChunks(ctx, job)
	if err != nil {
		return false, err
	}
	work := make(chan int)
	var wg sync.WaitGroup
	var isDown atomic.Bool
	r := &chunkRun{job: job, j: j, calls: make(chan struct{}, e.cfg.Concurrency)}
	r.apart, _ = j.(Apart)
	workers := e.cfg.Concurrency
	if r.apart != nil {
		workers *= 2
	}
	for range workers {
		wg.Go(func() {
			for seq := range work {
				err := e.processChunk(ctx, r, seq)
				switch {
				case errors.Is(err, errDown):
					isDown.Store(true)
				case err != nil && ctx.Err() == nil:
					e.log.Error("job chunk", "job", job, "chunk", seq, "err", err)
				}
			}
		})
	}
feed:
	for _, seq := range seqs {
		if isDown.Load() {
			break
		}
		select {
		case work <- seq:
		case <-e.worker.Quit():
			break feed
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	return isDown.Load(), nil
}

// chunkRun is what the chunks of one sendChunks share: the job, and the slots of the calls
// in flight (Concurrency), each taken for a call and given back when its answer is in.
type chunkRun struct {
	job   string
	j     Job
	apart Apart // j, when it sends apart
	calls chan struct{}
}

// call takes a call's slot; false when the worker stops first.
func (r *chunkRun) call(ctx context.Context, w *Worker) bool {
	select {
	case r.calls <- struct{}{}:
		return true
	case <-w.Quit():
		return false
	case <-ctx.Done():
		return false
	}
}

// done gives a call's slot back.
func (r *chunkRun) done() { <-r.calls }

// processChunk takes one chunk to confirmed or failed, or leaves it pending or unknown
// when the worker stops or the attempts run out; errDown when the service stopped
// answering.
func (e *Engine) processChunk(ctx context.Context, r *chunkRun, seq int) error {
	job, j := r.job, r.j
	c, err := j.LoadChunk(ctx, job, seq)
	if err != nil {
		return err
	}
	if c.State.Closed() {
		return nil
	}
	told := decidedOf(c)
	save := func() error {
		// Saved even when the worker is being stopped: the state must say what happened.
		if err := j.SaveChunk(context.WithoutCancel(ctx), c); err != nil {
			return err
		}
		c.saved()
		told = e.tell(c, told)
		return nil
	}
	for attempt := 0; ; attempt++ {
		if len(c.InState(Sent)) > 0 {
			// No answer came: look before sending again, once the call can no longer land.
			if wait := e.clock.Until(c.SentAt.Add(e.lead() + e.cfg.Settle)); wait > 0 && !e.worker.Sleep(ctx, wait) {
				return nil
			}
			if ctx.Err() != nil {
				return nil
			}
			if !r.call(ctx, e.worker) {
				return nil
			}
			err := e.check(ctx, c, j)
			r.done()
			if err != nil {
				if ctx.Err() != nil {
					return nil
				}
				c.State, c.LastError = ChunkUnknown, truncate(err.Error(), 500)
				if err := save(); err != nil {
					return err
				}
				if f, _ := e.classify(err); (f == Down || f == NoAnswer) && attempt+1 >= e.cfg.QuickTries {
					return errDown // still unknown: read again once the service answers
				}
				if attempt+1 >= e.cfg.MaxAttempts || !e.worker.Sleep(ctx, e.backoff(attempt)) {
					return nil // still unknown: read again at the next run
				}
				continue
			}
			c.State = ChunkPending
			if err := save(); err != nil {
				return err
			}
		}
		open := c.Open()
		if len(open) == 0 {
			c.State = ChunkConfirmed
			if c.Count(Failed) > 0 {
				c.State = ChunkFailed
			}
			return save()
		}
		if attempt >= e.cfg.MaxAttempts {
			// The service kept failing: given up for now; a retry sends these items later.
			e.giveUpChunk(c, UnsentDown)
			return save()
		}
		if e.stopping(ctx) {
			return nil
		}
		f, err := e.send(ctx, c, r, open, save)
		if err != nil && f == Other && errors.Is(err, errSave) {
			return err
		}
		if len(c.Open()) < len(open) {
			// Items went through before a call failed: the count of failures in a row,
			// which decides waiting for the service, starts again.
			attempt = 0
		}
		switch f {
		case NoFault: // a refusal, decided by send, is NoFault too
			c.State, c.LastError = ChunkPending, ""
			if len(c.Open()) == 0 {
				continue // the next turn closes the chunk, and saves it once
			}
			if err := save(); err != nil {
				return err
			}
			continue // the next turn sends the rest of a refused batch
		case NoAnswer, Other:
			// It may still land: Settle counts from now, when the call ended.
			c.State, c.SentAt, c.LastError = ChunkUnknown, e.clock.Now(), truncate(err.Error(), 500)
			for _, it := range c.InState(Sent) {
				it.Touch()
			}
			if err := save(); err != nil {
				return err
			}
			if ctx.Err() != nil {
				return nil
			}
			continue
		case Denied:
			e.giveUpChunk(c, UnsentDenied)
			c.LastError = truncate(err.Error(), 500)
			return save()
		case stopped:
			c.State = ChunkPending
			return save()
		default: // Down: nothing was applied
			for _, it := range c.InState(Sent) {
				c.Decide(it, Decision{State: Pending})
			}
			c.State, c.LastError = ChunkPending, truncate(err.Error(), 500)
			if err := save(); err != nil {
				return err
			}
			if attempt+1 >= e.cfg.QuickTries {
				return errDown // the job waits for the service, then sends it
			}
			if !e.worker.Sleep(ctx, e.backoff(attempt)) {
				return nil
			}
		}
	}
}

// lead is how long after its items were marked sent a call may leave (sendUnit marks them
// again when it would leave later): items found sent are read at the service lead +
// Settle after their mark, when a call that left with them has landed or never will. A
// second at most, and no more than Settle (tests settle in milliseconds).
func (e *Engine) lead() time.Duration { return min(time.Second, e.cfg.Settle) }

// stopped is send's fault when it sent nothing more because the worker stops.
const stopped Fault = -1

// errSave is an error of the kind's store while saving a chunk: the chunk is left as the
// database has it.
var errSave = errors.New("jobs: save a chunk")

// send makes the chunk's calls for its open items: one call for all, or one for each
// (OneByOne), each marked sent and saved before it leaves, in a call's slot (chunkRun).
// It stops at the first call that fails otherwise than by a refusal, and reports its
// fault and error.
func (e *Engine) send(ctx context.Context, c *Chunk, r *chunkRun, open []*Item, save func() error) (Fault, error) {
	units := [][]*Item{open}
	if c.OneByOne {
		units = make([][]*Item, len(open))
		for i, it := range open {
			units[i] = []*Item{it}
		}
	}
	for _, unit := range units {
		f, err := e.sendUnit(ctx, c, r, unit, save)
		if f != NoFault {
			return f, err
		}
	}
	return NoFault, nil
}

// sendUnit makes one of send's calls, in a call's slot: given back as soon as the answer
// is in when the kind sends apart, and its answer then written (Apart) before the items
// are decided. A refusal is decided here (NoFault when that went well).
func (e *Engine) sendUnit(ctx context.Context, c *Chunk, r *chunkRun, unit []*Item, save func() error) (Fault, error) {
	if e.stopping(ctx) {
		return stopped, nil
	}
	// Marked sent before the call leaves: a process that dies during it is read. The mark
	// is saved before the call's slot is waited for, so that the save (waiting its turn to
	// write behind other chunks' answers) is not between one call's end and the next's
	// start; a call leaving more than lead after its mark is marked again.
	mark := func() error {
		c.State, c.SentAt = ChunkSent, e.clock.Now()
		if err := save(); err != nil {
			return errors.Join(errSave, err)
		}
		return nil
	}
	for _, it := range unit {
		c.Decide(it, Decision{State: Sent})
	}
	c.Attempts++
	if err := mark(); err != nil {
		return Other, err
	}
	unsent := func() (Fault, error) {
		// Nothing left: the items are pending again, as the chunk is saved.
		for _, it := range unit {
			c.Decide(it, Decision{State: Pending})
		}
		return stopped, nil
	}
	if !r.call(ctx, e.worker) {
		return unsent()
	}
	held := true
	defer func() {
		if held {
			r.done()
		}
	}()
	if !e.pace(ctx) {
		return unsent()
	}
	if e.clock.Since(c.SentAt) > e.lead() {
		if err := mark(); err != nil {
			return Other, err
		}
	}
	e.items(Sent, len(unit))
	var err error
	if r.apart != nil {
		var after func(context.Context)
		after, err = r.apart.SendApart(ctx, c, unit)
		if after != nil {
			if err == nil {
				r.done() // the answer is in: the next chunk's call may leave while it is written
				held = false
			}
			after(ctx)
		}
	} else {
		err = r.j.Send(ctx, c, unit)
	}
	e.holdOff(err)
	f, words := e.classify(err)
	switch f {
	case NoFault:
		for _, it := range unit {
			if it.State == Sent {
				c.Decide(it, Decision{State: Done})
			}
		}
	case Refused:
		if rerr := e.refused(ctx, c, r.j, unit, err, words); rerr != nil {
			rf, _ := e.classify(rerr)
			if rf == NoAnswer || rf == Refused {
				rf = Down // a read that failed: nothing was applied by it
			}
			return rf, rerr
		}
		return NoFault, nil
	}
	return f, err
}

// refused lets the kind decide the items of a refused call; undecided ones are sent again,
// and when it decides none they fail with the service's words.
func (e *Engine) refused(ctx context.Context, c *Chunk, steps Steps, unit []*Item, err error, words string) error {
	rerr := steps.Refused(ctx, c, unit, err)
	decided := false
	for _, it := range unit {
		switch it.State {
		case Done:
			decided = true
			c.Recognised++
		case Skipped, Failed:
			decided = true
		}
	}
	if !decided && rerr == nil {
		if words == "" {
			words = err.Error()
		}
		for _, it := range unit {
			c.Decide(it, Decision{State: Failed, Problem: Problem{Code: ProblemRefused, Arg: truncate(words, 500)}})
		}
		return nil
	}
	for _, it := range unit {
		if it.State == Sent {
			c.Decide(it, Decision{State: Pending}) // refused: not applied; sent again
		}
	}
	return rerr
}

// check lets the kind read the chunk's items sent without an answer; those it finds
// there count as recognised, those it leaves undecided are sent again.
func (e *Engine) check(ctx context.Context, c *Chunk, steps Steps) error {
	sent := c.InState(Sent)
	err := steps.Check(ctx, c, sent)
	for _, it := range sent {
		switch {
		case it.State == Done:
			c.Recognised++
		case it.State == Sent && err == nil:
			c.Decide(it, Decision{State: Pending})
		}
	}
	return err
}

// giveUpChunk leaves the chunk's open items unsent until a retry, saying why.
func (e *Engine) giveUpChunk(c *Chunk, why string) {
	for _, it := range c.Open() {
		c.Decide(it, Decision{State: Failed, Problem: Problem{Code: ProblemUnsent, Arg: why}})
	}
	c.State = ChunkFailed
}

// giveUp leaves the items of the job's chunks not sent (none of their calls without an
// answer) for a retry: the service did not answer for WaitFor.
func (e *Engine) giveUp(ctx context.Context, j Job, job string) error {
	seqs, err := j.OpenChunks(ctx, job)
	if err != nil {
		return err
	}
	for _, seq := range seqs {
		c, err := j.LoadChunk(ctx, job, seq)
		if err != nil {
			return err
		}
		if c.State.Closed() || len(c.InState(Sent)) > 0 {
			continue // one without an answer is read before anything is decided about it
		}
		was := decidedOf(c)
		e.giveUpChunk(c, UnsentDown)
		if err := j.SaveChunk(ctx, c); err != nil {
			return err
		}
		e.tell(c, was)
	}
	return nil
}

// pace waits until the next call may leave (Config.Pace, and a service's Later); false
// when the worker stops.
func (e *Engine) pace(ctx context.Context) bool {
	e.paceMu.Lock()
	now := e.clock.Now()
	at := now
	if e.next.After(now) {
		at = e.next
	}
	e.next = at.Add(e.every)
	e.paceMu.Unlock()
	if d := at.Sub(now); d > 0 {
		return e.worker.Sleep(ctx, d)
	}
	return true
}

// backoff is the pause before the attempt-th try again: half to all of
// RetryBase·2^attempt, at most RetryMax.
func (e *Engine) backoff(attempt int) time.Duration {
	d := e.cfg.RetryMax
	if attempt < 20 {
		d = min(e.cfg.RetryBase<<attempt, e.cfg.RetryMax)
	}
	return d/2 + rand.N(d/2+1)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
