package ledger

import (
	"context"
	"log/slog"
	"time"

	"github.com/sekolah/portal/internal/store"
)

// syncLease is the named lease (store.ClaimLease) under which one instance syncs.
const syncLease = "ledger.sync"

// lease holds a named lease for one owner: claimed before work, renewed while the work
// runs, released when the worker stops. It follows the upload jobs' lease
// (internal/uploads): the same statements, through store's named leases.
type lease struct {
	db     *store.DB
	name   string
	owner  string
	ttl    time.Duration
	renew  time.Duration
	now    func() time.Time
	log    *slog.Logger
	expiry time.Time // until when this owner holds it, as last claimed or renewed
}

// claim takes or extends the lease; false when another instance holds it.
func (l *lease) claim(ctx context.Context) (bool, error) {
	now := l.now()
	until := now.Add(l.ttl)
	ok, err := l.db.ClaimLease(ctx, l.name, l.owner, until, now)
	if err != nil || !ok {
		return false, err
	}
	l.expiry = until
	return true, nil
}

// keep renews the lease every renew until ctx ends; it calls lost (and returns) when the
// lease is gone or may lapse before the next renewal, so the work stops before another
// instance could start the same.
func (l *lease) keep(ctx context.Context, lost context.CancelFunc) {
	t := time.NewTicker(l.renew)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := l.now()
		ok, err := l.db.RenewLease(ctx, l.name, l.owner, now.Add(l.ttl))
		switch {
		case err != nil:
			if ctx.Err() != nil {
				return
			}
			l.log.Warn("ledger sync: renew lease", "err", err)
			if !now.Add(l.renew).Before(l.expiry) {
				l.log.Error("ledger sync: lease about to lapse; stopping the run here")
				lost()
				return
			}
		case !ok:
			l.log.Error("ledger sync: lease taken by another instance; stopping the run here")
			lost()
			return
		default:
			l.expiry = now.Add(l.ttl)
		}
	}
}

// release frees the lease (another instance may go on at once).
func (l *lease) release(ctx context.Context) {
	if err := l.db.ReleaseLease(ctx, l.name, l.owner); err != nil {
		l.log.Error("ledger sync: release lease", "err", err)
	}
}
