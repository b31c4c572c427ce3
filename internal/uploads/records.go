package uploads

import (
	"context"

	"github.com/sekolah/portal/internal/store"
)

// What the pages read of uploads: the records, the problems found, the history.

// Job is one upload (store.ErrNotFound when there is none).
func (r *Runner) Job(ctx context.Context, id string) (store.UploadJob, error) {
	return r.db.UploadJobByID(ctx, id)
}

// Earlier are the earlier uploads of j's file (not discarded), newest first, at most five:
// what a held upload asks the person about.
func (r *Runner) Earlier(ctx context.Context, j store.UploadJob) ([]store.UploadJob, error) {
	return r.db.UploadJobsWithHash(ctx, j.FileSHA256, j.ID, StateDiscarded)
}

// Active are the uploads not finished yet: held, being checked, previewed, or being sent.
func (r *Runner) Active(ctx context.Context) ([]store.UploadJob, error) {
	return r.db.UploadJobsInStates(ctx, StateHeld, StateAnalysing, StateReady, StateQueued, StateChecking, StateSending)
}

// History is a page of every upload, newest first, and how many there are in all.
func (r *Runner) History(ctx context.Context, offset, limit int) ([]store.UploadJob, int, error) {
	return r.db.ListUploadJobs(ctx, offset, limit)
}

// Issues are a page of the problems kept of upload id, by row, then column.
func (r *Runner) Issues(ctx context.Context, id string, offset, limit int) ([]store.UploadIssue, error) {
	return r.db.UploadIssues(ctx, id, offset, limit)
}

// StudentNames are the roster's names of the students nis (those it has), for the
// preview's rows.
func (r *Runner) StudentNames(ctx context.Context, nis []string) (map[string]string, error) {
	roster, err := r.db.StudentsByNIS(ctx, nis)
	if err != nil {
		return nil, err
	}
	names := make(map[string]string, len(roster))
	for n, s := range roster {
		names[n] = s.Name
	}
	return names, nil
}
