package corrections

import (
	"context"

	"github.com/sekolah/portal/internal/store"
)

// What the pages read of correction jobs.

// Job is one correction job (store.ErrNotFound when there is none).
func (r *Runner) Job(ctx context.Context, id string) (store.CorrectionJob, error) {
	return r.db.CorrectionJobByID(ctx, id)
}

// JobForUpload is the undo of upload uploadID (store.ErrNotFound when it was not undone).
func (r *Runner) JobForUpload(ctx context.Context, uploadID string) (store.CorrectionJob, error) {
	return r.db.CorrectionJobForUpload(ctx, uploadID)
}

// Items are job id's items in any of states (all when none), in order.
func (r *Runner) Items(ctx context.Context, id string, states ...string) ([]store.CorrectionItem, error) {
	return r.db.CorrectionItems(ctx, id, states...)
}

// Undo reads what undoing upload uploadID would do (see Undo).
func (r *Runner) Undo(ctx context.Context, uploadID string) (UndoPlan, error) {
	return Undo(ctx, r.db, uploadID)
}
