package jobs

import (
	"context"
	"errors"
	"sync"
	"time"
)

// ErrStarted is Start's answer for a worker started before.
var ErrStarted = errors.New("jobs: worker already started")

// Worker is the lifecycle a background worker of the portal shares: Start, the goroutines
// it runs (Go), wake-ups, pauses cut short by a stop, and a Stop that is graceful first
// (no new work is taken; the calls in flight end) and hard when its context ends (they are
// cut, and left for the next start to read at the service). A job kind's runner holds one.
type Worker struct {
	mu      sync.Mutex
	started bool
	stopped bool
	ctx     context.Context // cancelled by a hard stop: calls in flight are cut
	cancel  context.CancelFunc
	quit    chan struct{} // closed by Stop: no new work is taken
	wake    chan struct{}
	wg      sync.WaitGroup
	// onStart, when set, is told of the context Start was given (NewRunner: the metrics'
	// Watcher it may carry).
	onStart func(ctx context.Context)
}

// NewWorker makes a worker; nothing runs until Start.
func NewWorker() *Worker {
	return &Worker{quit: make(chan struct{}), wake: make(chan struct{}, 1), ctx: context.Background()}
}

// Start marks the worker running. Its context is ctx's values without its end: only Stop
// ends the worker's work.
func (w *Worker) Start(ctx context.Context) error {
	w.mu.Lock()
	if w.started {
		w.mu.Unlock()
		return ErrStarted
	}
	w.started = true
	w.ctx, w.cancel = context.WithCancel(context.WithoutCancel(ctx))
	w.mu.Unlock()
	if w.onStart != nil {
		w.onStart(ctx)
	}
	return nil
}

// Run starts the worker and runs loop in its goroutine with the worker's context: the
// whole of Start for a worker that is one loop (ErrStarted when it was started before).
func (w *Worker) Run(ctx context.Context, loop func(ctx context.Context)) error {
	if err := w.Start(ctx); err != nil {
		return err
	}
	w.Go(func() { loop(w.Context()) })
	return nil
}

// Go runs fn in a goroutine that Stop waits for; false (fn not run) before Start or once
// the worker stops.
func (w *Worker) Go(fn func()) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.started || w.stopped {
		return false
	}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		fn()
	}()
	return true
}

// Stop stops taking new work and waits for what runs to end; when ctx ends first, the
// worker's context is cancelled (calls in flight are cut) and Stop still waits for the
// goroutines to return, then reports ctx's error. Stopping twice, or a worker never
// started, is nothing.
func (w *Worker) Stop(ctx context.Context) error {
	if !w.stop(false) {
		return nil
	}
	done := w.ended()
	select {
	case <-done:
		w.cancel()
		return nil
	case <-ctx.Done():
		w.cancel()
		<-done
		return ctx.Err()
	}
}

// Halt stops the worker hard at once: no new work is taken and its context is cancelled
// (the work in flight is cut: a worker whose work resumes where it stopped, like the
// ledger's sync); it waits for the goroutines to return, or for ctx.
func (w *Worker) Halt(ctx context.Context) error {
	if !w.stop(true) {
		return nil
	}
	select {
	case <-w.ended():
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// stop marks the worker stopped (and cancels its context when hard); false when it was
// not running.
func (w *Worker) stop(hard bool) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.started || w.stopped {
		return false
	}
	w.stopped = true
	close(w.quit)
	if hard {
		w.cancel()
	}
	return true
}

// ended is closed once every goroutine of the worker has returned.
func (w *Worker) ended() <-chan struct{} {
	done := make(chan struct{})
	go func() { w.wg.Wait(); close(done) }()
	return done
}

// Running reports whether the worker started and was not asked to stop.
func (w *Worker) Running() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.started && !w.stopped
}

// Context is the worker's context: cancelled by a hard stop (Background before Start).
func (w *Worker) Context() context.Context {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.ctx
}

// Quit is closed when the worker is asked to stop.
func (w *Worker) Quit() <-chan struct{} { return w.quit }

// Quitting reports whether the worker was asked to stop.
func (w *Worker) Quitting() bool {
	select {
	case <-w.quit:
		return true
	default:
		return false
	}
}

// Wake asks the worker to look for work now (a job was submitted, or a person asked a
// waiting job to try again); wake-ups while one is pending are one.
func (w *Worker) Wake() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Woken delivers the wake-ups.
func (w *Worker) Woken() <-chan struct{} { return w.wake }

// Sleep waits d, or less when the worker stops (gracefully or hard) or ctx ends; it
// reports whether the wait completed.
func (w *Worker) Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-w.quit:
		return false
	case <-ctx.Done():
		return false
	}
}

// Idle waits for a wake-up or d, whichever comes first; false when the worker stops.
func (w *Worker) Idle(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-w.wake:
	case <-t.C:
	case <-w.quit:
		return false
	}
	return true
}
