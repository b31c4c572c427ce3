package reports

import (
	"cmp"
	"context"
	"fmt"
	"iter"
	"slices"
	"time"

	"github.com/sekolah/portal/internal/billing"
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

func (f PaymentsFilter) key() string {
	return f.From.Format(time.DateOnly) + "|" + f.To.Format(time.DateOnly) + "|" + f.Account
}

// PaymentRow is one payment: the component paid, its amount part and penalty part (they
// add up to Paid, the amount_paid), and the reference the bank gave.
type PaymentRow struct {
	Day       time.Time // the day it was paid, in the school's zone
	PaidAt    time.Time
	NIS       string
	Name      string
	Class     string
	Component string
	Account   string
	Amount    int64
	Penalty   int64
	Paid      int64
	Ref       string
}

// DayTotal is what came in on one day (or, as a report's Total, over the range).
type DayTotal struct {
	Day     time.Time
	Count   int
	Amount  int64
	Penalty int64
	Paid    int64
}

func (t *DayTotal) add(r PaymentRow) {
	t.Count++
	t.Amount += r.Amount
	t.Penalty += r.Penalty
	t.Paid += r.Paid
}

// PaymentsReport is the payments of a range: daily totals and every payment, by day.
type PaymentsReport struct {
	Filter PaymentsFilter
	Days   []DayTotal // days with payments only
	Rows   []PaymentRow
	Total  DayTotal
}

// payment is the part of a paid component the payments report uses: a third of a
// billing.Bill, so the days read ahead stay small.
type payment struct {
	paidAt             time.Time
	id, nis, student   string
	name, account, ref string
	amount, amountPaid int64
}

func paymentOf(b billing.Bill) payment {
	return payment{paidAt: b.PaidAt, id: b.ComponentID, nis: b.NIS, student: b.StudentName, name: b.Name,
		account: b.AccountCode, ref: b.RefNumber, amount: b.Amount, amountPaid: b.AmountPaid}
}

func paymentRow(p payment, people People, loc *time.Location) PaymentRow {
	pe := people[p.nis]
	if pe.Name == "" {
		pe.Name = p.student
	}
	penalty := max(p.amountPaid-p.amount, 0)
	return PaymentRow{
		Day: billing.DayIn(p.paidAt, loc), PaidAt: p.paidAt, NIS: p.nis, Name: pe.Name, Class: pe.Class,
		Component: p.name, Account: p.account, Amount: p.amountPaid - penalty, Penalty: penalty, Paid: p.amountPaid, Ref: p.ref,
	}
}

// prefetchDays is how many days are read ahead while earlier ones are written.
const prefetchDays = 4

// paidByDay yields, day by day from from to to, the components paid on that day (in the
// order they were paid). Each day is one search with the payment-date filter, so rows come
// out in date order while only a few days are ever held; up to prefetchDays are read
// ahead concurrently to hide the service's latency.
func paidByDay(ctx context.Context, src Source, q billing.Query, from, to time.Time, loc *time.Location) iter.Seq2[[]payment, error] {
	return func(yield func([]payment, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		type result struct {
			payments []payment
			err      error
		}
		var days []time.Time
		for d := from; !d.After(to); d = d.AddDate(0, 0, 1) {
			days = append(days, d)
		}
		results := make([]chan result, len(days))
		start := func(i int) {
			results[i] = make(chan result, 1)
			go func() {
				dq := q
				dq.PaidFrom, dq.PaidTo = days[i], days[i]
				var list []payment
				for b, err := range src.All(ctx, dq) {
					if err != nil {
						results[i] <- result{err: err}
						return
					}
					// Defensive: keep only what the portal's day rule puts on this day.
					if b.State == billing.StatePaid && !b.PaidAt.IsZero() && billing.DayIn(b.PaidAt, loc).Equal(days[i]) {
						list = append(list, paymentOf(b))
					}
				}
				slices.SortFunc(list, func(a, b payment) int {
					return cmp.Or(a.paidAt.Compare(b.paidAt), cmp.Compare(a.nis, b.nis), cmp.Compare(a.id, b.id))
				})
				results[i] <- result{payments: list}
			}()
		}
		for i := range min(prefetchDays, len(days)) {
			start(i)
		}
		for i := range days {
			r := <-results[i]
			results[i] = nil
			if next := i + prefetchDays; next < len(days) {
				start(next)
			}
			if r.err != nil {
				yield(nil, r.err)
				return
			}
			if !yield(r.payments, nil) {
				return
			}
		}
	}
}

// eachPayment streams the payments of f in date order to row, and returns the daily
// totals and the grand total. It is what both the screen and the exports are made from.
func (s *Service) eachPayment(ctx context.Context, f PaymentsFilter, people People, row func(PaymentRow) error) ([]DayTotal, DayTotal, error) {
	if err := f.Check(); err != nil {
		return nil, DayTotal{}, err
	}
	var days []DayTotal
	var total DayTotal
	// No state filter: the real service reports money received under several states
	// (reconciled, cleared, ...) that the client folds into paid; the payment date
	// filter already leaves out what was not paid.
	q := billing.Query{AccountCode: f.Account, Limit: billing.MaxLimit}
	for list, err := range paidByDay(ctx, s.src, q, f.From, f.To, s.loc) {
		if err != nil {
			return nil, DayTotal{}, fmt.Errorf("reports: payments: %w", err)
		}
		if len(list) == 0 {
			continue
		}
		day := DayTotal{Day: billing.DayIn(list[0].paidAt, s.loc)}
		for _, p := range list {
			r := paymentRow(p, people, s.loc)
			day.add(r)
			total.add(r)
			if err := row(r); err != nil {
				return nil, DayTotal{}, err
			}
		}
		days = append(days, day)
	}
	return days, total, nil
}

// Payments returns the payments report of f for the screen, from cache when fresh.
func (s *Service) Payments(ctx context.Context, f PaymentsFilter, refresh bool) (Cached[PaymentsReport], error) {
	if err := f.Check(); err != nil {
		return Cached[PaymentsReport]{}, err
	}
	return get(ctx, s.cache, "payments|"+f.key(), refresh, func(ctx context.Context) (PaymentsReport, error) {
		people, err := loadPeople(ctx, s.roster)
		if err != nil {
			return PaymentsReport{}, err
		}
		rep := PaymentsReport{Filter: f}
		rep.Days, rep.Total, err = s.eachPayment(ctx, f, people, func(r PaymentRow) error {
			rep.Rows = append(rep.Rows, r)
			return nil
		})
		return rep, err
	})
}
