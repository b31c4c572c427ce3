package ledger

import (
	"context"
	"time"

	"github.com/sekolah/portal/internal/jobs"
)

// syncLease is the named lease (store.ClaimLease) under which one instance syncs.
const syncLease = "ledger.sync"

// lease holds one of the ledger's named leases (the sync's, syncLease; the callbacks'
// confirmations', callbacksLease) for one owner: claimed before a run, renewed while the
// run goes on, released when the worker stops. It is a job lease of internal/jobs (the
// same as uploads' and corrections'), held across runs: a claim by its own holder extends
// it.
type lease struct {
	jobs.Lease
	name   string
	expiry time.Time // until when this owner holds it, as last claimed
}

// claim takes or extends the lease; false when another instance holds it.
func (l *lease) claim(ctx context.Context) (bool, error) {
	until, ok, err := l.Claim(ctx, l.name)
	if ok {
		l.expiry = until
	}
	return ok, err
}

// keep renews the lease while ctx lasts; it calls lost when the lease is gone or may lapse
// before the next renewal, so the run stops before another instance could start the same.
func (l *lease) keep(ctx context.Context, lost context.CancelFunc) {
	l.Keep(ctx, l.name, l.expiry, lost)
}

// release frees the lease (another instance may go on at once).
func (l *lease) release(ctx context.Context) { l.Release(ctx, l.name) }
