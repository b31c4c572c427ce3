package uploads

import (
	"context"

	"github.com/sekolah/portal/internal/billing"
)

// The components an upload created are remembered, so the upload can be undone: the ids
// the service answered for a confirmed chunk (with the chunk's save: SaveChunk), and for
// rows a reconcile found at the service, the ids of the components that match them.

// recordCreated remembers components a reconcile found (store.AddUploadCreated). The
// chunk is done at the service whatever happens here, so a failure is logged, not returned.
func (r *Runner) recordCreated(ctx context.Context, jobID string, bills []billing.Bill) {
	ids := make([]string, 0, len(bills))
	for _, b := range bills {
		ids = append(ids, b.ComponentID)
	}
	if err := r.db.AddUploadCreated(context.WithoutCancel(ctx), jobID, ids); err != nil {
		r.log.Error("upload job: remember the components created", "job", jobID, "err", err)
	}
}

// recordFound remembers the components of rows a reconcile found at the service (their
// answer was lost): each is read back by its student, name and due day.
func (r *Runner) recordFound(ctx context.Context, jobID string, found []compItem) {
	var bills []billing.Bill
	for _, it := range found {
		due := day(it.Due)
		q := billing.Query{DueFrom: due.AddDate(0, 0, -1), DueTo: due.AddDate(0, 0, 1), Limit: billing.MaxLimit}
		list, err := r.client.StudentBills(ctx, it.NIS, q)
		if err != nil {
			r.log.Error("upload job: read back the components a reconcile found", "job", jobID, "nis", it.NIS, "err", err)
			continue
		}
		for _, b := range list {
			if nameKey(b.Name) == nameKey(it.Name) && epochDay(b.Due) == epochDay(due) {
				bills = append(bills, b)
			}
		}
	}
	r.recordCreated(ctx, jobID, bills)
}
