package corrections

import "github.com/sekolah/portal/internal/store"

// The correction records as the pages read them: the job and its items, the store's rows
// (the runner keeps them there), named here so the pages need nothing below this package.
type (
	// Job is a correction job: what it changes, why, who asked, its state and counts.
	Job = store.CorrectionJob
	// JobItem is one component (or student) a correction job changes, with its outcome.
	JobItem = store.CorrectionItem
)

// ErrNotFound is the answer for a correction job that does not exist.
var ErrNotFound = store.ErrNotFound
