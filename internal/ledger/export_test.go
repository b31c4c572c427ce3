package ledger

import "time"

// Test hooks for the external tests (package ledger_test).
var (
	Generate = generate
	GenToday = genToday
)

// SetMaxFound changes how many students a search of l names one by one (beyond it the
// search is joined in SQL).
func (l *Ledger) SetMaxFound(n int) { l.maxFound = n }

// SetAskPollForTest shortens how often a started syncer looks for requests to sync now.
func (s *Syncer) SetAskPollForTest(d time.Duration) { s.cfg.AskPoll = d }
