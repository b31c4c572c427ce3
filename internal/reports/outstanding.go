package reports

import (
	"context"
	"time"

	"github.com/sekolah/portal/internal/ledger"
)

// The outstanding report, as the ledger groups it.
type (
	// OutstandingFilter selects unpaid, payable components: of one class (NoClass:
	// students without one), one account code, and due between DueFrom and DueTo.
	OutstandingFilter = ledger.OutstandingFilter
	// OutstandingRow is one student's unpaid components by age.
	OutstandingRow = ledger.OutstandingRow
	// OutstandingReport is the students who owe, by class then name, and the totals.
	OutstandingReport = ledger.OutstandingReport
)

func dayKey(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.DateOnly)
}

// Outstanding returns the outstanding report of f from the ledger; refresh also asks
// for a sync now.
func (s *Service) Outstanding(ctx context.Context, f OutstandingFilter, refresh bool) (Result[OutstandingReport], error) {
	if err := f.Check(); err != nil {
		return Result[OutstandingReport]{}, err
	}
	return read(ctx, s, refresh, func() (OutstandingReport, error) { return s.l.Outstanding(ctx, f) })
}
