package jobs

import (
	"context"
	"math/rand/v2"
	"time"
)

// waitForService pauses a job whose service stopped answering, and reports whether to try
// again: false once the job has waited WaitFor (its unsent items are then given up until a
// retry), or when the worker stops or the job's lease is lost. The pause grows from
// RetryMax to WaitMax; since when the job waits is kept with it (its page says so, and a
// restart, here or elsewhere, goes on counting from then); a person's hurry ends the pause
// at once.
func (e *Engine) waitForService(ctx context.Context, st Store, job string, attempt int) (bool, error) {
	since, hurry, err := st.Waiting(ctx, job)
	if err != nil {
		return false, err
	}
	now := e.clock.Now()
	if since.IsZero() {
		since = now
		if err := st.SetWaiting(ctx, job, since); err != nil {
			return false, err
		}
		e.log.Warn("job: the service does not answer; waiting for it", "job", job, "for", e.cfg.WaitFor)
	}
	d := e.waitBackoff(attempt)
	if e.cfg.WaitFor > 0 {
		left := since.Add(e.cfg.WaitFor).Sub(now)
		if left <= 0 {
			e.log.Error("job: the service did not answer for too long; its unsent items wait for a retry", "job", job, "since", since)
			return false, nil
		}
		d = min(d, left)
	}
	return e.pause(ctx, st, job, d, hurry), nil
}

// waitBackoff is the pause before the attempt-th try while waiting: doubling from
// RetryMax up to WaitMax, with jitter so instances do not knock at once.
func (e *Engine) waitBackoff(attempt int) time.Duration {
	d := e.cfg.WaitMax
	if attempt < 20 {
		d = min(e.cfg.RetryMax<<max(attempt, 0), e.cfg.WaitMax)
	}
	return d*3/4 + rand.N(d/4+1)
}

// pause waits d; it ends early, reporting true, when a person asks the job to hurry
// (locally through a wake-up, or in another instance through the job's hurry time, looked
// at every Look), and reports false when the worker stops or ctx ends.
func (e *Engine) pause(ctx context.Context, st Store, job string, d time.Duration, hurried time.Time) bool {
	end := e.clock.Now().Add(d)
	for {
		left := end.Sub(e.clock.Now())
		if left <= 0 {
			return true
		}
		t := time.NewTimer(min(left, e.cfg.Look))
		select {
		case <-t.C:
		case <-e.worker.Woken():
		case <-e.worker.Quit():
			t.Stop()
			return false
		case <-ctx.Done():
			t.Stop()
			return false
		}
		t.Stop()
		if _, hurry, err := st.Waiting(ctx, job); err == nil && hurry.After(hurried) {
			return true
		}
	}
}

// stopWaiting records that the job no longer waits for the service.
func (e *Engine) stopWaiting(ctx context.Context, st Store, job string) error {
	since, _, err := st.Waiting(ctx, job)
	if err != nil || since.IsZero() {
		return err
	}
	e.log.Info("job: the service answers again", "job", job, "waited", e.clock.Since(since).Round(time.Second))
	return st.SetWaiting(ctx, job, time.Time{})
}
