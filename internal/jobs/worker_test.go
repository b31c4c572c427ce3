package jobs

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sekolah/portal/internal/clock"
)

// The engine waits between tries with a capped, jittered back-off (half to all of
// base·2^attempt, at most RetryMax), and a stop cuts a wait short. Run in a synctest
// bubble with the defaults: the waits take no real time.
func TestBackoffWaitsAndStopCutsItShort(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		w := NewWorker()
		e := NewEngine(Config{}, w, BillingFault, clock.System(time.UTC), nil)
		base, top := e.cfg.RetryBase, e.cfg.RetryMax
		if base != 500*time.Millisecond || top != 15*time.Second {
			t.Fatalf("defaults: base %v, max %v", base, top)
		}
		if err := w.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		for attempt := range 8 {
			want := min(base<<attempt, top)
			for range 20 {
				start := time.Now()
				if !w.Sleep(w.Context(), e.backoff(attempt)) {
					t.Fatalf("attempt %d: the wait did not complete", attempt)
				}
				if waited := time.Since(start); waited < want/2 || waited > want {
					t.Fatalf("attempt %d waited %v, want between %v and %v", attempt, waited, want/2, want)
				}
			}
		}
		// While waiting for the service the pause grows from RetryMax to WaitMax, jittered
		// by a quarter at most.
		for attempt, want := range []time.Duration{15 * time.Second, 30 * time.Second, time.Minute, 2 * time.Minute, 4 * time.Minute, 5 * time.Minute, 5 * time.Minute} {
			for range 20 {
				if d := e.waitBackoff(attempt); d < want*3/4 || d > want {
					t.Fatalf("wait %d: %v, want between %v and %v", attempt, d, want*3/4, want)
				}
			}
		}

		// Stop during a wait: the sleeper returns at once, reporting the wait cut short.
		done := make(chan bool)
		start := time.Now()
		if !w.Go(func() { done <- w.Sleep(w.Context(), time.Hour) }) {
			t.Fatal("Go refused a running worker")
		}
		synctest.Wait() // the sleeper is waiting
		stopped := make(chan error)
		go func() { stopped <- w.Stop(context.Background()) }()
		if completed := <-done; completed || time.Since(start) != 0 {
			t.Fatalf("after Stop: completed %v after %v, want cut short at once", completed, time.Since(start))
		}
		if err := <-stopped; err != nil {
			t.Fatal(err)
		}
		if w.Go(func() {}) || w.Running() {
			t.Error("a stopped worker still takes work")
		}
	})
}

// TestStopIsGracefulThenHard: Stop waits for the work in flight to end; when its context
// ends first, the worker's context is cancelled (calls in flight are cut) and Stop still
// returns only once the work has.
func TestStopIsGracefulThenHard(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		w := NewWorker()
		if err := w.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		if err := w.Start(context.Background()); !errors.Is(err, ErrStarted) {
			t.Errorf("started twice: %v", err)
		}
		ended := make(chan string, 1)
		// A call in flight that ends by itself after a minute, or when cut.
		call := func(w *Worker) func() {
			return func() {
				select {
				case <-time.After(time.Minute):
					ended <- "finished"
				case <-w.Context().Done():
					ended <- "cut"
				}
			}
		}
		w.Go(call(w))
		// Graceful: given two minutes, the call finishes.
		start := time.Now()
		if err := w.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := <-ended; got != "finished" || time.Since(start) != time.Minute {
			t.Fatalf("graceful stop: %s after %v", got, time.Since(start))
		}

		w = NewWorker()
		if err := w.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		w.Go(call(w))
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		start = time.Now()
		if err := w.Stop(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("hard stop: %v", err)
		}
		if got := <-ended; got != "cut" || time.Since(start) != time.Second {
			t.Fatalf("hard stop: %s after %v", got, time.Since(start))
		}
	})
}
