package reports

import (
	"context"
	"time"

	"github.com/sekolah/portal/internal/ledger"
)

// AccountsReport is the per account code summary.
type AccountsReport struct {
	Filter PaymentsFilter // From and To; Account is ignored
	Today  time.Time
	Rows   []ledger.AccountRow
	Total  ledger.AccountRow
}

func (s *Service) computeAccounts(ctx context.Context, f PaymentsFilter) (AccountsReport, error) {
	f.Account = ""
	if err := f.Check(); err != nil {
		return AccountsReport{}, err
	}
	rep, err := s.l.Accounts(ctx, f.From, f.To)
	if err != nil {
		return AccountsReport{}, err
	}
	return AccountsReport{Filter: f, Today: rep.Today, Rows: rep.Rows, Total: rep.Total}, nil
}

// Accounts returns the per account code summary from the ledger; refresh also asks for
// a sync now.
func (s *Service) Accounts(ctx context.Context, f PaymentsFilter, refresh bool) (Result[AccountsReport], error) {
	f.Account = ""
	if err := f.Check(); err != nil {
		return Result[AccountsReport]{}, err
	}
	return read(ctx, s, refresh, func() (AccountsReport, error) { return s.computeAccounts(ctx, f) })
}
