package reports

import (
	"context"
	"time"

	"github.com/sekolah/portal/internal/ledger"
)

func dayKey(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.DateOnly)
}

// Outstanding returns the outstanding report of f from the ledger (who owes what today,
// grouped by student in its SQL); refresh also asks for a sync now. A due range that
// ends before it starts is ErrBadRange.
func (s *Service) Outstanding(ctx context.Context, f ledger.OutstandingFilter, refresh bool) (Result[ledger.OutstandingReport], error) {
	if err := checkOutstanding(f); err != nil {
		return Result[ledger.OutstandingReport]{}, err
	}
	return read(ctx, s, refresh, func() (ledger.OutstandingReport, error) { return s.l.Outstanding(ctx, f) })
}

// checkOutstanding validates the filter's due range in the reports' words.
func checkOutstanding(f ledger.OutstandingFilter) error {
	if f.Check() != nil {
		return ErrBadRange
	}
	return nil
}
