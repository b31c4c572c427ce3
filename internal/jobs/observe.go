package jobs

import (
	"context"
	"sync/atomic"
	"time"
)

// Census is how a kind's jobs to run stand, as the database has them: the same on every
// instance (the metrics read it when scraped: internal/metrics).
type Census struct {
	// Queued jobs are to run (the Queue's Next lists them) and no instance holds them:
	// they wait their turn.
	Queued int
	// Running jobs are held by an instance (their lease has not lapsed).
	Running int
	// WaitingForService jobs wait for a service that stopped answering (their
	// waiting_since is set), held or not.
	WaitingForService int
}

// LeaseCensus is what Leases that can count their jobs offer (store.JobLeases does): of
// the jobs ids, how many an instance holds at now and how many wait for the service.
type LeaseCensus interface {
	Census(ctx context.Context, ids []string, now time.Time) (held, waiting int, err error)
}

// Watcher is told of every kind's runner as it starts, with how to count its jobs, and of
// the items its engine takes to an end: internal/metrics implements it. internal/app puts
// it in the context the workers are started with (WithWatcher), so a kind that runs on a
// Runner (NewRunner) is watched without a line of its own.
type Watcher interface {
	// Kind is told of a runner that started: its kind's name and how to count its jobs
	// (read when the metrics are scraped).
	Kind(kind string, census func(context.Context) (Census, error))
	// Items is told that n items of kind reached state: Sent each time a call leaves with
	// them (again when sent again); Done, Skipped or Failed once decided here.
	Items(kind string, state State, n int)
}

type watcherKey struct{}

// WithWatcher is ctx carrying w: the runners started with it tell w of themselves.
func WithWatcher(ctx context.Context, w Watcher) context.Context {
	if w == nil {
		return ctx
	}
	return context.WithValue(ctx, watcherKey{}, w)
}

// watcherOf is the Watcher ctx carries (nil: none).
func watcherOf(ctx context.Context) Watcher {
	w, _ := ctx.Value(watcherKey{}).(Watcher)
	return w
}

// kindNamer is Leases that name their kind (store.JobLeases: its table's).
type kindNamer interface{ Kind() string }

// watch tells the Watcher ctx carries of the runner (at Start): its census and, from now
// on, its engine's items.
func (r *Runner) watch(ctx context.Context) {
	w := watcherOf(ctx)
	if w == nil {
		return
	}
	r.Engine.watched.Store(&engineWatch{kind: r.Kind, w: w})
	w.Kind(r.Kind, r.Census)
}

// Census counts the kind's jobs to run (Next) and, when its Leases can say
// (LeaseCensus), how many are held and how many wait for the service; otherwise all
// count as queued.
func (r *Runner) Census(ctx context.Context) (Census, error) {
	ids, err := r.Queue.Next(ctx)
	if err != nil {
		return Census{}, err
	}
	c := Census{Queued: len(ids)}
	lc, ok := r.Lease.Leases.(LeaseCensus)
	if !ok || len(ids) == 0 {
		return c, nil
	}
	held, waiting, err := lc.Census(ctx, ids, r.Lease.Clock.Now())
	if err != nil {
		return Census{}, err
	}
	c.Queued, c.Running, c.WaitingForService = len(ids)-held, held, waiting
	return c, nil
}

// engineWatch is the Watcher an engine tells of its items, with its kind's name.
type engineWatch struct {
	kind string
	w    Watcher
}

// itemWatch is an engine's watcher (nil until its runner starts with one).
type itemWatch = atomic.Pointer[engineWatch]

// items tells the watcher, if any, that n items reached state.
func (e *Engine) items(state State, n int) {
	if n <= 0 {
		return
	}
	if w := e.watched.Load(); w != nil {
		w.w.Items(w.kind, state, n)
	}
}

// decided counts a chunk's items done, skipped and failed: the engine tells the watcher
// what moved between two saves.
type decided [3]int

func decidedOf(c *Chunk) decided {
	return decided{c.Count(Done), c.Count(Skipped), c.Count(Failed)}
}

// tell tells the watcher what was decided since was, and returns what is decided now.
func (e *Engine) tell(c *Chunk, was decided) decided {
	now := decidedOf(c)
	for i, s := range []State{Done, Skipped, Failed} {
		e.items(s, now[i]-was[i])
	}
	return now
}
