package reports

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/sekolah/portal/internal/billing"
)

// AccountRow is what one school account received in the range (Payments, Amount,
// Penalty, Paid) and what it is still to receive as of today (NotYetDue, Overdue).
type AccountRow struct {
	Account     string
	Payments    int
	Amount      int64
	Penalty     int64
	Paid        int64
	NotYetDue   int64
	Overdue     int64
	Outstanding int64
}

func (r *AccountRow) addRow(o AccountRow) {
	r.Payments += o.Payments
	r.Amount += o.Amount
	r.Penalty += o.Penalty
	r.Paid += o.Paid
	r.NotYetDue += o.NotYetDue
	r.Overdue += o.Overdue
	r.Outstanding += o.Outstanding
}

// AccountsReport is the per account code summary.
type AccountsReport struct {
	Filter PaymentsFilter // From and To; Account is ignored
	Today  time.Time
	Rows   []AccountRow
	Total  AccountRow
}

// computeAccounts reads the range's payments and today's unpaid components once each
// and adds them up per account code.
func (s *Service) computeAccounts(ctx context.Context, f PaymentsFilter, today time.Time) (AccountsReport, error) {
	f.Account = ""
	if err := f.Check(); err != nil {
		return AccountsReport{}, err
	}
	rep := AccountsReport{Filter: f, Today: today}
	rows := map[string]*AccountRow{}
	row := func(code string) *AccountRow {
		r := rows[code]
		if r == nil {
			r = &AccountRow{Account: code}
			rows[code] = r
		}
		return r
	}
	from, to := dayNum(f.From), dayNum(f.To)
	for b, err := range s.src.All(ctx, billing.Query{PaidFrom: f.From, PaidTo: f.To, Limit: billing.MaxLimit}) {
		if err != nil {
			return AccountsReport{}, fmt.Errorf("reports: accounts: %w", err)
		}
		if b.State != billing.StatePaid || b.PaidAt.IsZero() {
			continue
		}
		if n := dayNum(b.PaidAt.In(s.loc)); n < from || n > to {
			continue
		}
		amount, penalty := paymentParts(b)
		r := row(b.AccountCode)
		r.Payments++
		r.Amount += amount
		r.Penalty += penalty
		r.Paid += b.AmountPaid
	}
	for b, err := range s.src.All(ctx, billing.Query{State: billing.StateProvisioned, Limit: billing.MaxLimit}) {
		if err != nil {
			return AccountsReport{}, fmt.Errorf("reports: accounts: %w", err)
		}
		due := b.DueToday(today)
		if b.State == billing.StatePaid || due == 0 {
			continue
		}
		r := row(b.AccountCode)
		if b.IsLate(today) {
			r.Overdue += due
		} else {
			r.NotYetDue += due
		}
		r.Outstanding += due
	}
	for _, r := range rows {
		rep.Rows = append(rep.Rows, *r)
		rep.Total.addRow(*r)
	}
	slices.SortFunc(rep.Rows, func(a, b AccountRow) int { return cmp.Compare(a.Account, b.Account) })
	return rep, nil
}

// Accounts returns the per account code summary for the screen, from cache when fresh.
func (s *Service) Accounts(ctx context.Context, f PaymentsFilter, refresh bool) (Cached[AccountsReport], error) {
	f.Account = ""
	if err := f.Check(); err != nil {
		return Cached[AccountsReport]{}, err
	}
	today := s.Today()
	key := "accounts|" + today.Format(time.DateOnly) + "|" + f.key()
	return get(ctx, s.cache, key, refresh, func(ctx context.Context) (AccountsReport, error) {
		return s.computeAccounts(ctx, f, today)
	})
}
