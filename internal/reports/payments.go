package reports

import (
	"context"
	"fmt"
	"time"

	"github.com/sekolah/portal/internal/ledger"
)

// PaymentsFilter selects payments received from From to To (days in the school's zone,
// inclusive), optionally of one account code.
type PaymentsFilter struct {
	From, To time.Time
	Account  string
}

// Check validates the range.
func (f PaymentsFilter) Check() error {
	switch {
	case f.From.IsZero() || f.To.IsZero() || f.To.Before(f.From):
		return ErrBadRange
	case f.To.Sub(f.From) > MaxRangeDays*24*time.Hour:
		return ErrRangeTooLong
	}
	return nil
}

// PaymentsReport is the payments of a range: daily totals and every payment, by day.
type PaymentsReport struct {
	Filter PaymentsFilter
	Days   []ledger.DayTotal // days with payments only
	Rows   []ledger.PaymentRow
	Total  ledger.DayTotal
	// Channels are the same receipts by channel (where they were paid), with admin fees.
	Channels ChannelReport
}

// eachPayment streams the payments of f in the order they were paid to row, and
// returns the daily totals and the grand total, added up from the rows themselves so a
// file's totals are those of its rows. It is what the exports are made from.
func (s *Service) eachPayment(ctx context.Context, f PaymentsFilter, row func(ledger.PaymentRow) error) ([]ledger.DayTotal, ledger.DayTotal, error) {
	if err := f.Check(); err != nil {
		return nil, ledger.DayTotal{}, err
	}
	var days []ledger.DayTotal
	var total ledger.DayTotal
	for r, err := range s.l.Payments(ctx, f.From, f.To, f.Account) {
		if err != nil {
			return nil, ledger.DayTotal{}, fmt.Errorf("reports: payments: %w", err)
		}
		if len(days) == 0 || !days[len(days)-1].Day.Equal(r.Day) {
			days = append(days, ledger.DayTotal{Day: r.Day})
		}
		for _, t := range []*ledger.DayTotal{&days[len(days)-1], &total} {
			t.Count++
			t.Amount += r.Amount
			t.Penalty += r.Penalty
			t.Paid += r.Paid
		}
		if err := row(r); err != nil {
			return nil, ledger.DayTotal{}, err
		}
	}
	return days, total, nil
}

// Payments returns the payments report of f from the ledger: the daily totals from its
// summary table and every payment; refresh also asks for a sync now.
func (s *Service) Payments(ctx context.Context, f PaymentsFilter, refresh bool) (Result[PaymentsReport], error) {
	if err := f.Check(); err != nil {
		return Result[PaymentsReport]{}, err
	}
	return read(ctx, s, refresh, func() (PaymentsReport, error) {
		rep := PaymentsReport{Filter: f}
		var err error
		if rep.Days, rep.Total, err = s.l.PaymentDays(ctx, f.From, f.To, f.Account); err != nil {
			return PaymentsReport{}, fmt.Errorf("reports: payments: %w", err)
		}
		for r, err := range s.l.Payments(ctx, f.From, f.To, f.Account) {
			if err != nil {
				return PaymentsReport{}, fmt.Errorf("reports: payments: %w", err)
			}
			rep.Rows = append(rep.Rows, r)
		}
		if rep.Channels, err = s.Channels(ctx, f); err != nil {
			return PaymentsReport{}, err
		}
		return rep, nil
	})
}
