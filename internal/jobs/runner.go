package jobs

import (
	"context"
	"log/slog"
	"time"

	"github.com/sekolah/portal/internal/clock"
)

// Runner is a kind's worker as it is usually assembled: the Worker (its lifecycle; Stop,
// Wake and Go are its), the Engine its jobs are sent with, and the Queue that takes them
// one at a time under their leases. A kind holds one and adds only what is its own.
type Runner struct {
	*Worker
	Engine *Engine
	Queue  *Queue
	// Lease is how this instance holds its jobs' leases (for work of the kind's own that
	// runs under a job's lease, like an upload's analysis).
	Lease Lease
	// Kind is the kind's name (RunnerConfig.Kind).
	Kind string
}

// RunnerConfig is what NewRunner assembles a runner from.
type RunnerConfig struct {
	// Kind names the kind in the metrics ("upload"); empty, its Leases name it
	// (store.JobLeases: its table's name without "_jobs").
	Kind string
	// Engine shapes the sending (its Look defaults to LeaseRenew).
	Engine   Config
	Classify Classify
	// Clock must advance (see the package doc).
	Clock clock.Clock
	Log   *slog.Logger
	// Leases are where the kind's jobs keep their leases; Owner names this instance;
	// a lease lasts LeaseTTL unless renewed every LeaseRenew, which is also how often the
	// queue looks for jobs of other instances.
	Leases               Leases
	Owner                string
	LeaseTTL, LeaseRenew time.Duration
	// Ordered, Next and Run are the Queue's.
	Ordered bool
	Next    func(ctx context.Context) ([]string, error)
	Run     func(ctx context.Context, id string) error
}

// NewRunner assembles a runner; nothing runs until Start.
func NewRunner(c RunnerConfig) *Runner {
	w := NewWorker()
	if c.Engine.Look <= 0 {
		c.Engine.Look = c.LeaseRenew
	}
	if n, ok := c.Leases.(kindNamer); ok && c.Kind == "" {
		c.Kind = n.Kind()
	}
	l := Lease{Leases: c.Leases, Owner: c.Owner, TTL: c.LeaseTTL, Renew: c.LeaseRenew, Clock: c.Clock, Log: c.Log}
	r := &Runner{Worker: w, Engine: NewEngine(c.Engine, w, c.Classify, c.Clock, c.Log), Lease: l, Kind: c.Kind,
		Queue: &Queue{Worker: w, Lease: l, Ordered: c.Ordered, Next: c.Next, Run: c.Run, Log: c.Log}}
	// Whoever starts the worker (Runner.Start, or a kind starting it itself) with a Watcher
	// in the context has the kind watched (observe.go).
	w.onStart = r.watch
	return r
}

// Start starts the worker and its job loop; the kind starts its other goroutines with Go.
func (r *Runner) Start(ctx context.Context) error {
	if err := r.Worker.Start(ctx); err != nil {
		return err
	}
	r.Go(r.Queue.Loop)
	return nil
}
