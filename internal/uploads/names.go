package uploads

import "github.com/sekolah/portal/internal/store"

// The upload records as the pages read them: the job with its state and counts, and one
// problem found in a cell. They are the store's rows (the runner keeps them there), named
// here so the pages need nothing below this package.
type (
	// Job is an upload: its file, kind, state, counts and who did what when.
	Job = store.UploadJob
	// StoredIssue is one problem found in a cell, as kept with the job.
	StoredIssue = store.UploadIssue
)

// ErrNotFound is the answer for an upload, or a job of one, that does not exist.
var ErrNotFound = store.ErrNotFound
