package uploads_test

import (
	"testing"
	"time"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/uploads"
)

// TestStateRules: what each state of an upload allows, in one table: the page offers
// exactly these (web only asks).
func TestStateRules(t *testing.T) {
	t.Parallel()
	type rules struct{ running, preparing, finished, busy, discardable, committable, analysable bool }
	for state, want := range map[string]rules{
		uploads.StateHeld:      {discardable: true, analysable: true},
		uploads.StateAnalysing: {busy: true, discardable: true},
		uploads.StateInvalid:   {discardable: true, analysable: true},
		uploads.StateReady:     {discardable: true, committable: true},
		uploads.StateQueued:    {running: true, preparing: true, busy: true},
		uploads.StateChecking:  {running: true, preparing: true, busy: true},
		uploads.StateSending:   {running: true, busy: true},
		uploads.StateDone:      {finished: true},
		uploads.StatePartial:   {finished: true},
		uploads.StateFailed:    {finished: true},
		uploads.StateDiscarded: {},
	} {
		s := uploads.State(state)
		got := rules{s.Running(), s.Preparing(), s.Finished(), s.Busy(), s.Discardable(), s.Committable(), s.Analysable()}
		if got != want {
			t.Errorf("%s: %+v, want %+v", state, got, want)
		}
		if s.Committed() != (want.running || want.finished) {
			t.Errorf("%s: committed %v", state, s.Committed())
		}
		for _, lang := range []i18n.Lang{i18n.Indonesian, i18n.English} {
			if p := i18n.NewPrinter(lang, nil); p.T(s.Key()) == s.Key() {
				t.Errorf("%s has no wording in %s", state, lang)
			}
		}
	}
}

// TestRetryRules: a finished job is retried when rows are still unsent, or when its check
// failed before anything was sent because the service or the portal failed (not the file)
// and the file is kept; a job waiting for the service is hurried instead; an invalid
// upload is analysed again on the same grounds.
func TestRetryRules(t *testing.T) {
	t.Parallel()
	waiting := time.Date(2026, 7, 1, 3, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name               string
		j                  store.UploadJob
		p                  store.UploadProgress
		retry, hurry, anew bool
	}{
		{"partial with unsent rows", store.UploadJob{State: "partial", FileKept: true}, store.UploadProgress{Chunks: 3, Pending: 20}, true, false, false},
		{"partial, rows refused only", store.UploadJob{State: "partial", FileKept: true}, store.UploadProgress{Chunks: 3, FailedRows: 2}, false, false, false},
		{"done", store.UploadJob{State: "done", FileKept: true}, store.UploadProgress{Chunks: 3}, false, false, false},
		{"check failed: service", store.UploadJob{State: "failed", FileKept: true, Problem: "upstream"}, store.UploadProgress{}, true, false, false},
		{"check failed: ours", store.UploadJob{State: "failed", FileKept: true, Problem: "internal"}, store.UploadProgress{}, true, false, false},
		{"check failed: file gone", store.UploadJob{State: "failed", Problem: "upstream"}, store.UploadProgress{}, false, false, false},
		{"check failed: the file", store.UploadJob{State: "failed", FileKept: true, Problem: "missing_columns"}, store.UploadProgress{}, false, false, false},
		{"sending, waiting", store.UploadJob{State: "sending", WaitingSince: waiting}, store.UploadProgress{Chunks: 3, Pending: 20}, false, true, false},
		{"sending", store.UploadJob{State: "sending"}, store.UploadProgress{Chunks: 3, Pending: 20}, false, false, false},
		{"invalid: service", store.UploadJob{State: "invalid", FileKept: true, Problem: "upstream"}, store.UploadProgress{}, false, false, true},
		{"invalid: the file", store.UploadJob{State: "invalid", FileKept: true, Problem: "not_xlsx"}, store.UploadProgress{}, false, false, false},
		{"invalid: file gone", store.UploadJob{State: "invalid", Problem: "internal"}, store.UploadProgress{}, false, false, false},
	} {
		if got := uploads.CanRetry(c.j, c.p); got != c.retry {
			t.Errorf("%s: CanRetry %v", c.name, got)
		}
		if got := uploads.Hurried(c.j); got != c.hurry {
			t.Errorf("%s: Hurried %v", c.name, got)
		}
		if got := uploads.CanAnalyseAgain(c.j); got != c.anew {
			t.Errorf("%s: CanAnalyseAgain %v", c.name, got)
		}
	}
}
