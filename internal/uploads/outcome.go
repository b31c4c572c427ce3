package uploads

import (
	"context"
	"io"
	"slices"

	"github.com/sekolah/portal/internal/store"
)

// Template writes the kind's template with the configured account codes.
func (r *Runner) Template(w io.Writer, kind Kind) error {
	return WriteTemplate(w, kind, r.cfg.Accounts)
}

// Outcome is where a committed job stands: its chunks summed, the rows the service
// refused (the first maxFailures of them) and why rows are still unsent, if they are.
type Outcome struct {
	Progress     store.UploadProgress
	Failures     []store.UploadFailure
	MoreFailures int
	// UnsentReason is FailUnavailable or FailRefused when rows were given up on for now.
	UnsentReason string
}

// maxFailures bounds the refused rows a page lists; the rest are counted.
const maxFailures = 100

// Outcome sums the job's chunks.
func (r *Runner) Outcome(ctx context.Context, id string) (Outcome, error) {
	var o Outcome
	var err error
	if o.Progress, err = r.db.UploadProgressOf(ctx, id, ChunkConfirmed, ChunkFailed, ChunkSent, ChunkUnknown); err != nil {
		return o, err
	}
	if o.Progress.FailedRows == 0 && o.Progress.Failed == 0 {
		return o, nil
	}
	chunks, err := r.db.UploadChunks(ctx, id)
	if err != nil {
		return o, err
	}
	for _, c := range chunks {
		for _, f := range c.Failures {
			if len(o.Failures) < maxFailures {
				o.Failures = append(o.Failures, f)
			} else {
				o.MoreFailures++
			}
		}
		if c.State == ChunkFailed && len(c.PendingRows) > 0 {
			o.UnsentReason = FailUnavailable
			if c.LastError == FailRefused {
				o.UnsentReason = FailRefused
			}
		}
	}
	slices.SortFunc(o.Failures, func(a, b store.UploadFailure) int { return a.Row - b.Row })
	return o, nil
}
