package ledger

import "time"

// Test hooks for the external tests (package ledger_test).
var (
	Generate = generate
	GenToday = genToday
)

// SetMaxFound changes how many students a search names one by one (beyond it the search
// is joined in SQL) and returns a function that puts it back.
func SetMaxFound(n int) (restore func()) {
	old := maxFound
	maxFound = n
	return func() { maxFound = old }
}

// SetAskPollForTest shortens how often a started syncer looks for requests to sync now.
func (s *Syncer) SetAskPollForTest(d time.Duration) { s.cfg.AskPoll = d }
