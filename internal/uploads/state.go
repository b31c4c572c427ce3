package uploads

import (
	"github.com/sekolah/portal/internal/jobs"
	"github.com/sekolah/portal/internal/store"
)

// State is where an upload stands, and the rules that follow from it: what its page
// offers (discard, commit, retry), whether it is still being worked on, how it is worded.
// An upload is held (the same file was uploaded before: the person confirms), analysing,
// then ready (the preview) or invalid (the file cannot be used); committed it is queued,
// checking (the service is searched once more for rows that exist by now, and the chunks
// are made), sending, and at last done, partial (some rows refused or not sent) or
// failed. Discarded uploads keep their history line only.
type State string

// The states of an upload. They are untyped, as the store keeps them (store.UploadJob's
// State); State(j.State) reads one with its rules (StateOf).
const (
	StateHeld      = "held"
	StateAnalysing = "analysing"
	StateInvalid   = "invalid"
	StateReady     = "ready"
	StateQueued    = "queued"
	StateChecking  = "checking"
	StateSending   = "sending"
	StateDone      = "done"
	StatePartial   = "partial"
	StateFailed    = "failed"
	StateDiscarded = "discarded"
)

// StateOf is j's state with its rules.
func StateOf(j store.UploadJob) State { return State(j.State) }

// Running reports a committed job in the runner's hands (queued, checking, sending).
func (s State) Running() bool { return s == StateQueued || s == StateChecking || s == StateSending }

// Finished reports a committed job that has ended (done, partial, failed).
func (s State) Finished() bool { return s == StateDone || s == StatePartial || s == StateFailed }

// Preparing reports a committed job whose rows are not cut into chunks yet (queued, or
// being checked against the service once more): the preview's counts stand for it.
func (s State) Preparing() bool { return s == StateQueued || s == StateChecking }

// Committed reports an upload whose rows were committed: running or finished.
func (s State) Committed() bool { return s.Running() || s.Finished() }

// Busy reports an upload being worked on in the background (analysed or sent): its page
// keeps asking how far it is.
func (s State) Busy() bool { return s == StateAnalysing || s.Running() }

// Discardable reports an upload that can still be dropped: not committed (held, ready,
// invalid) or still being analysed (stuck, or not wanted any more).
func (s State) Discardable() bool {
	return s == StateHeld || s == StateReady || s == StateInvalid || s == StateAnalysing
}

// Committable reports an upload whose preview can be committed.
func (s State) Committable() bool { return s == StateReady }

// Analysable reports an upload whose analysis can be started (again): held until the
// person confirms, or invalid because the service did not answer.
func (s State) Analysable() bool { return s == StateHeld || s == StateInvalid }

// Key is the state's catalogue key ("uploads.state.<state>").
func (s State) Key() string { return "uploads.state." + string(s) }

// retryableProblem reports a problem of the whole file that another try may solve (the
// service did not answer, something of ours failed), as opposed to one of the file.
func retryableProblem(code string) bool { return code == "upstream" || code == "internal" }

// CanAnalyseAgain reports whether j's analysis can be run again: it is invalid because
// the service or the portal failed, not because of the file, and the file is still kept.
func CanAnalyseAgain(j store.UploadJob) bool {
	return State(j.State) == StateInvalid && j.FileKept && retryableProblem(j.Problem)
}

// CanRetry reports whether a person may retry finished job j (p, its chunks summed): rows
// are still unsent, or its check before sending failed with nothing sent (the service did
// not answer) and its file is still kept. A running job waiting for the service is asked
// to try again now instead (Hurried).
func CanRetry(j store.UploadJob, p store.UploadProgress) bool {
	if !State(j.State).Finished() {
		return false
	}
	return p.Pending > 0 || p.Chunks == 0 && j.FileKept && retryableProblem(j.Problem)
}

// Hurried reports whether a retry of j asks it to try again now rather than sending its
// unsent rows again: it is running and waiting for the service.
func Hurried(j store.UploadJob) bool { return State(j.State).Running() && !j.WaitingSince.IsZero() }

// The chunk states, as upload_chunks keeps them: the engine's (internal/jobs).
const (
	ChunkPending   = string(jobs.ChunkPending)
	ChunkSent      = string(jobs.ChunkSent)
	ChunkConfirmed = string(jobs.ChunkConfirmed)
	ChunkFailed    = string(jobs.ChunkFailed)
	ChunkUnknown   = string(jobs.ChunkUnknown)
)
