package jobs

import (
	"context"
	"log/slog"
	"time"
)

// Queue is a kind's job loop: it takes the kind's jobs one at a time, in the order Next
// gives them, each under its lease, until the worker stops. A job held by another
// instance is left to it; every Lease.Renew (and whenever the worker is woken) the queue
// looks again, so a job submitted on another instance, or left by one that stopped or
// died, is found.
type Queue struct {
	Worker *Worker
	Lease  Lease
	// Ordered: only the first job Next gives may run. Later jobs wait behind it, even while
	// another instance runs it, as they would behind it in one instance: two jobs then never
	// race on the same records (an upload's rows checked against the service, then sent).
	// Unordered, the first job no other instance holds runs.
	Ordered bool
	// Next lists the jobs to run, in order (a query of the kind's table).
	Next func(ctx context.Context) ([]string, error)
	// Run takes one job as far as it goes, under its lease; ctx ends when the worker stops
	// hard or the lease is lost. A job left unfinished is listed by Next again.
	Run func(ctx context.Context, id string) error
	Log *slog.Logger
}

// errorPause is how long the loop waits after a failure of its own (the database, a job
// that failed) before it looks again.
const errorPause = 5 * time.Second

// Loop runs jobs until the worker stops; start it with Worker.Go.
func (q *Queue) Loop() {
	w := q.Worker
	log := q.Log
	if log == nil {
		log = slog.Default()
	}
	for !w.Quitting() {
		ctx := w.Context()
		ids, err := q.Next(ctx)
		if err != nil {
			log.Error("jobs to run", "err", err)
			if !w.Sleep(ctx, errorPause) {
				return
			}
			continue
		}
		ran := false
		for i, id := range ids {
			if q.Ordered && i > 0 {
				break
			}
			held, err := q.Lease.Hold(ctx, id, func(ctx context.Context) error { return q.Run(ctx, id) })
			if !held {
				if err != nil {
					log.Error("claim a job", "job", id, "err", err)
					break
				}
				continue // another instance runs it
			}
			ran = true
			if err != nil && ctx.Err() == nil && !w.Quitting() {
				log.Error("job", "job", id, "err", err)
				if !w.Sleep(ctx, errorPause) {
					return
				}
			}
			break
		}
		if !ran && !w.Idle(q.Lease.Renew) {
			return
		}
	}
}
