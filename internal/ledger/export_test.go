package ledger

// Test hooks for the external tests (package ledger_test).
var (
	Generate = generate
	GenToday = genToday
)
