package uploads

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/sekolah/portal/internal/billing"
)

// errServiceDown is a chunk's, or the check's, way of saying the service stopped
// answering: the job waits for it (see waitForService) instead of giving its rows up.
var errServiceDown = errors.New("uploads: the billing service does not answer")

// quickTries is how many times a call is tried, with the short backoff, before the job
// decides the service is down and waits for it with the long one.
const quickTries = 3

// serviceDown reports an error that says the service is not answering (a 5xx, no answer
// in time, a refused connection), as opposed to one that says something about the rows.
func serviceDown(err error) bool {
	return errors.Is(err, billing.ErrUnavailable) || errors.Is(err, billing.ErrTimeout)
}

// waitForService pauses a job whose service stopped answering, and reports whether to try
// again: false once the job has waited Config.WaitFor (it then gives its unsent rows up,
// for a Retry), or when the runner stops or loses the job's lease. The pause grows from
// RetryMax to WaitMax (a few minutes); since when the job waits is kept with it (the page
// says so, and a restart, here or elsewhere, goes on counting from then); a person's
// Retry ends the pause at once.
func (r *Runner) waitForService(ctx context.Context, id string, attempt int) (bool, error) {
	j, err := r.db.UploadJobByID(ctx, id)
	if err != nil {
		return false, err
	}
	now := r.now()
	since := j.WaitingSince
	if since.IsZero() {
		since = now
		if err := r.db.SetUploadWaiting(ctx, id, since); err != nil {
			return false, err
		}
		r.log.Warn("upload job: the billing service does not answer; waiting for it", "job", id, "for", r.cfg.WaitFor)
	}
	left := since.Add(r.cfg.WaitFor).Sub(now)
	if left <= 0 {
		r.log.Error("upload job: the billing service did not answer for too long; its unsent rows wait for a Retry",
			"job", id, "since", since)
		return false, nil
	}
	return r.pause(ctx, id, min(r.waitBackoff(attempt), left), j.HurryAt), nil
}

// waitBackoff is the pause before the attempt-th try while waiting: doubling from
// RetryMax up to WaitMax, with jitter so instances do not knock at once.
func (r *Runner) waitBackoff(attempt int) time.Duration {
	d := r.cfg.WaitMax
	if attempt < 20 {
		d = min(r.cfg.RetryMax<<max(attempt, 0), r.cfg.WaitMax)
	}
	return d*3/4 + rand.N(d/4+1)
}

// pause waits d; it ends early, reporting true, when a person asks the job to hurry
// (locally through wake, or in another instance through the job's hurry_at, looked at
// every LeaseRenew), and reports false when the runner stops or ctx ends.
func (r *Runner) pause(ctx context.Context, id string, d time.Duration, hurried time.Time) bool {
	end := r.now().Add(d)
	for {
		left := end.Sub(r.now())
		if left <= 0 {
			return true
		}
		t := time.NewTimer(min(left, r.cfg.LeaseRenew))
		select {
		case <-t.C:
		case <-r.wake:
		case <-r.quit:
			t.Stop()
			return false
		case <-ctx.Done():
			t.Stop()
			return false
		}
		t.Stop()
		if j, err := r.db.UploadJobByID(ctx, id); err == nil && j.HurryAt.After(hurried) {
			return true
		}
	}
}

// stopWaiting records that the job no longer waits for the service.
func (r *Runner) stopWaiting(ctx context.Context, id string) error {
	j, err := r.db.UploadJobByID(ctx, id)
	if err != nil || j.WaitingSince.IsZero() {
		return err
	}
	r.log.Info("upload job: the billing service answers again", "job", id, "waited", r.now().Sub(j.WaitingSince).Round(time.Second))
	return r.db.SetUploadWaiting(ctx, id, time.Time{})
}

// giveUpWaiting leaves the chunks not sent for a Retry (failed, the service unavailable),
// so the job ends partial.
func (r *Runner) giveUpWaiting(ctx context.Context, id string) error {
	chunks, err := r.db.UploadChunks(ctx, id)
	if err != nil {
		return err
	}
	for _, c := range chunks {
		if c.State == ChunkPending {
			c.State, c.LastError = ChunkFailed, FailUnavailable
			if err := r.db.SaveUploadChunk(ctx, c); err != nil {
				return err
			}
		}
	}
	return nil
}
