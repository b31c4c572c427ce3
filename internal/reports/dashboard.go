package reports

import (
	"context"

	"github.com/sekolah/portal/internal/ledger"
)

// Dashboard returns the dashboard of today from the ledger (its figures and their rules
// are the ledger's: internal/ledger/dashboard.go); refresh also asks for a sync now (the
// figures returned are the ledger's as they stand).
func (s *Service) Dashboard(ctx context.Context, refresh bool) (Result[ledger.Dashboard], error) {
	return read(ctx, s, refresh, func() (ledger.Dashboard, error) { return s.l.Dashboard(ctx) })
}
