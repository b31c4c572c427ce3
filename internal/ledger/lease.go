package ledger

import (
	"context"

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
	name string
}

// hold runs fn with the lease claimed (or extended, when this owner holds it already) and
// renewed while fn runs; fn's context ends when the lease is lost. The lease stays held
// after fn (released when the worker stops). held is false, and fn is not run, when
// another instance holds it.
func (l *lease) hold(ctx context.Context, fn func(ctx context.Context) error) (held bool, err error) {
	return l.Keeping(ctx, l.name, fn)
}

// release frees the lease (another instance may go on at once).
func (l *lease) release(ctx context.Context) { l.Release(ctx, l.name) }
