package jobs

import (
	"context"
	"log/slog"
	"time"

	"github.com/sekolah/portal/internal/clock"
)

// Leases are where a kind's jobs keep their leases, in the database the instances share:
// a row per job with its holder and when the lease lapses (store.JobLeases is one for a
// table of jobs). Claim takes the lease when it is free, already owner's or lapsed by
// now, in one statement, so two instances never both hold it.
type Leases interface {
	// Claim takes job id's lease for owner until `until`; it reports whether owner holds it.
	Claim(ctx context.Context, id, owner string, until, now time.Time) (bool, error)
	// Renew extends owner's lease to `until`; false when owner no longer holds it.
	Renew(ctx context.Context, id, owner string, until time.Time) (bool, error)
	// Release frees owner's lease; one held by another is left alone.
	Release(ctx context.Context, id, owner string) error
}

// Lease is how one instance holds its jobs' leases: Owner is the instance's runner, TTL
// how long a lease lasts unless renewed, Renew how often it is renewed while the job runs.
// An instance that dies leaves leases that lapse after TTL; another takes the job then.
type Lease struct {
	Leases Leases
	Owner  string
	TTL    time.Duration
	Renew  time.Duration
	Clock  clock.Clock
	Log    *slog.Logger
}

// Hold runs fn under job id's lease: it claims the lease (held is false, and fn is not run,
// when another instance holds it), renews it every Renew while fn runs, and releases it
// when fn returns, even when the worker is being stopped hard (another instance may go on
// at once). When the lease is lost (taken by another after renewals failed until it
// lapsed), fn's context is cancelled so nothing more is sent from here.
func (l Lease) Hold(ctx context.Context, id string, fn func(ctx context.Context) error) (held bool, err error) {
	held, err = l.Keeping(ctx, id, fn)
	if held {
		rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer rcancel()
		l.Release(rctx, id)
	}
	return held, err
}

// Keeping is Hold without the release: the lease stays held after fn (until it lapses, or
// its holder releases it), for a worker that holds one lease across its runs (the
// ledger's sync); a claim by its own holder extends it.
func (l Lease) Keeping(ctx context.Context, id string, fn func(ctx context.Context) error) (held bool, err error) {
	until, ok, err := l.Claim(ctx, id)
	if err != nil || !ok {
		return false, err
	}
	work, cancel := context.WithCancel(ctx)
	defer cancel()
	kept := make(chan struct{})
	go func() {
		defer close(kept)
		l.Keep(work, id, until, cancel)
	}()
	err = fn(work)
	cancel()
	<-kept
	return true, err
}

// Claim takes job id's lease (or extends it, when already this owner's) for TTL from now;
// ok is false when another instance holds it. until is when it lapses unless renewed.
func (l Lease) Claim(ctx context.Context, id string) (until time.Time, ok bool, err error) {
	now := l.Clock.Now()
	until = now.Add(l.TTL)
	ok, err = l.Leases.Claim(ctx, id, l.Owner, until, now)
	return until, ok, err
}

// Keep renews job id's lease, held until `until`, every Renew until ctx ends; it calls
// lost (and returns) when the lease is gone or may lapse before the next renewal (the
// renewals kept failing), so the work stops before another instance could start the same.
func (l Lease) Keep(ctx context.Context, id string, until time.Time, lost context.CancelFunc) {
	t := time.NewTicker(l.Renew)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := l.Clock.Now()
		ok, err := l.Leases.Renew(ctx, id, l.Owner, now.Add(l.TTL))
		switch {
		case err != nil && ctx.Err() != nil:
			return
		case err != nil:
			l.log().Warn("renew a lease", "job", id, "err", err)
			if !now.Add(l.Renew).Before(until) {
				l.log().Error("a lease is about to lapse; stopping its work here", "job", id)
				lost()
				return
			}
		case !ok:
			l.log().Error("a lease was taken by another instance; stopping its work here", "job", id)
			lost()
			return
		default:
			until = now.Add(l.TTL)
		}
	}
}

// Release frees job id's lease (another instance may go on at once); a failure is
// logged: the lease then lapses by itself.
func (l Lease) Release(ctx context.Context, id string) {
	if err := l.Leases.Release(ctx, id, l.Owner); err != nil {
		l.log().Error("release a lease", "job", id, "err", err)
	}
}

func (l Lease) log() *slog.Logger {
	if l.Log == nil {
		return slog.Default()
	}
	return l.Log
}
