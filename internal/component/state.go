package component

import (
	"time"

	"github.com/sekolah/portal/internal/billing"
)

// Status is how a component reads on a page today: the service's state, with "overdue"
// for an unpaid component that costs the penalty today and "expired" for one past its
// expiry day even before the service marks it so. The values are the keys of the shared
// state.* words and the badge classes.
type Status string

// The statuses a component can show.
const (
	StatusProvisioned Status = "provisioned" // unpaid: not yet due, or due today
	StatusOverdue     Status = "overdue"     // unpaid, past its due day, not expired
	StatusPaid        Status = "paid"
	StatusExpired     Status = "expired" // unpaid and past its expiry day: no longer payable
)

// Today is what a component is on one day (now in the service zone), by the billing day
// rule: every page that shows a component's state, lateness or price takes it from here.
//
// On is the one reading of a component today. It is built on the billing package's day
// rule (internal/billing/bill.go: IsLate, DueToday, DaysLate), which is the source: what
// a day is, when a component is late or expired and what paying it costs. The ledger
// reads a million components the same way in SQL (internal/ledger/today.go, the second
// implementation), pinned to On by its property test; nothing else restates the rule.
type Today struct {
	Status Status
	// DueToday: unpaid and today is its due day (the last day without the penalty).
	DueToday bool
	// NotYetActive: unpaid and its active day is still to come; the service refuses to
	// take a payment for it until then.
	NotYetActive bool
	// DaysLate counts days from the due day to today: > 0 late, < 0 due in so many days.
	DaysLate int
	// Penalty is what paying today adds to the amount: the penalty when overdue, else 0.
	Penalty int64
	// Price is what paying today costs: the amount, plus the penalty when overdue; 0 when
	// paid or expired.
	Price int64
}

// On is b on today (now in the service zone).
func On(b billing.Bill, today time.Time) Today {
	t := Today{DaysLate: b.DaysLate(today), Price: b.DueToday(today)}
	switch {
	case b.State == billing.StatePaid:
		t.Status = StatusPaid
	case b.State == billing.StateExpired || t.Price == 0:
		// The day rule prices a component 0 exactly when it is paid, deleted or expired
		// (amounts are more than zero): unpaid and priced 0 is no longer payable.
		t.Status = StatusExpired
	case b.IsLate(today):
		t.Status, t.Penalty = StatusOverdue, b.Penalty
	default:
		t.Status = StatusProvisioned
	}
	unpaid := t.Status == StatusProvisioned || t.Status == StatusOverdue
	t.DueToday = unpaid && t.DaysLate == 0
	t.NotYetActive = unpaid && !b.Active.IsZero() &&
		billing.DayIn(b.Active, time.UTC).After(billing.DayIn(today, today.Location()))
	return t
}

// Payable reports whether the service would take a payment for it today.
func (t Today) Payable() bool {
	return (t.Status == StatusProvisioned || t.Status == StatusOverdue) && !t.NotYetActive
}

// PenaltyPaid is the penalty part of what was paid for b: what was paid above its amount.
func PenaltyPaid(b billing.Bill) int64 {
	if b.State != billing.StatePaid || b.AmountPaid <= b.Amount {
		return 0
	}
	return b.AmountPaid - b.Amount
}
