package uploads

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sekolah/portal/internal/clock"
)

// The runner waits between attempts of a chunk with a capped, jittered back-off (half to
// all of base·2^attempt, at most RetryMax), and a stop cuts a wait short. Run in a synctest
// bubble with the production defaults: the waits take no real time.
func TestBackoffWaitsAndStopCutsItShort(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		r := NewRunner(Config{Clock: clock.System(time.UTC)}, nil, nil, nil, nil)
		base, top := r.cfg.RetryBase, r.cfg.RetryMax
		if base != 500*time.Millisecond || top != 15*time.Second {
			t.Fatalf("defaults: base %v, max %v", base, top)
		}
		r.ctx, r.cancel = context.WithCancel(context.Background())
		for attempt := range 8 {
			want := min(base<<attempt, top)
			for range 20 {
				start := time.Now()
				if !r.sleep(r.backoff(attempt)) {
					t.Fatalf("attempt %d: the wait did not complete", attempt)
				}
				if waited := time.Since(start); waited < want/2 || waited > want {
					t.Fatalf("attempt %d waited %v, want between %v and %v", attempt, waited, want/2, want)
				}
			}
		}

		// Stop during a wait: the sleeper returns at once, reporting the wait cut short.
		r.mu.Lock()
		r.started = true
		r.mu.Unlock()
		done := make(chan bool)
		start := time.Now()
		go func() { done <- r.sleep(time.Hour) }()
		synctest.Wait() // the sleeper is waiting
		if err := r.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
		if completed := <-done; completed || time.Since(start) != 0 {
			t.Fatalf("after Stop: completed %v after %v, want cut short at once", completed, time.Since(start))
		}
	})
}
