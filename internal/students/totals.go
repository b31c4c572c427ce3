package students

import (
	"cmp"
	"context"
	"fmt"
	"iter"
	"slices"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/component"
)

// Totals are what the roster shows per student: the sum due today of the unpaid,
// unexpired components (billing.Bill.DueToday) and how many of them are late.
type Totals struct {
	Outstanding int64
	Overdue     int
}

func (t *Totals) add(c component.Today) {
	t.Outstanding += c.Price
	if c.Status == component.StatusOverdue {
		t.Overdue++
	}
}

// StateTotal is the count and money of one group of a student's components.
type StateTotal struct {
	Count  int
	Amount int64
}

// Summary groups one student's components the way the student page shows them: unpaid
// (not late) and overdue at what paying them costs today, paid at what was paid, expired
// at their amount.
type Summary struct {
	Unpaid  StateTotal
	Overdue StateTotal
	Paid    StateTotal
	Expired StateTotal
	Totals  Totals
}

// Summarize adds up bills on today (now in the service zone).
func Summarize(bills []billing.Bill, today time.Time) Summary {
	var s Summary
	for _, b := range bills {
		c := component.On(b, today)
		s.Totals.add(c)
		switch c.Status {
		case component.StatusPaid:
			s.Paid.Count++
			s.Paid.Amount += b.AmountPaid
		case component.StatusExpired:
			s.Expired.Count++
			s.Expired.Amount += b.Amount
		case component.StatusOverdue:
			s.Overdue.Count++
			s.Overdue.Amount += c.Price
		default:
			s.Unpaid.Count++
			s.Unpaid.Amount += c.Price
		}
	}
	return s
}

// Account is one student's components, by due day (then name), and their summary.
type Account struct {
	Bills   []billing.Bill
	Summary Summary
}

// Components reads one student's components: the ledger (internal/ledger), which answers
// from the portal's own copy of the service, the same way the billing client does.
type Components interface {
	AllForStudent(ctx context.Context, nis string, q billing.Query) iter.Seq2[billing.Bill, error]
}

// LoadAccount reads every component of nis and adds them up on today.
func LoadAccount(ctx context.Context, src Components, nis string, today time.Time) (Account, error) {
	var a Account
	for b, err := range src.AllForStudent(ctx, nis, billing.Query{}) {
		if err != nil {
			return Account{}, fmt.Errorf("students: bills of %s: %w", nis, err)
		}
		a.Bills = append(a.Bills, b)
	}
	slices.SortStableFunc(a.Bills, func(x, y billing.Bill) int {
		return cmp.Or(x.Due.Compare(y.Due), cmp.Compare(x.Name, y.Name), x.CreatedAt.Compare(y.CreatedAt))
	})
	a.Summary = Summarize(a.Bills, today)
	return a, nil
}
