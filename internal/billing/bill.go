package billing

import "time"

// State is a bill component's state as the portal sees it.
type State string

// The states of a component; the service's other "money received" states
// read as StatePaid (Bill.RawState keeps the original). Deleted components
// are left out of every listing unless asked for (Query.State = StateDeleted);
// GetComponent and DeleteComponents return them as they are.
const (
	StateProvisioned State = "provisioned"
	StatePaid        State = "paid"
	StateExpired     State = "expired"
	StateDeleted     State = "deleted"
)

// Bill is one bill component record of a student's bill, every field of the
// contract's record. Active, Due and Expiry are calendar days (their UTC
// date is the day); the other times are instants in UTC.
type Bill struct {
	ComponentID string
	BillID      string
	NIS         string
	StudentName string
	AccountCode string
	Name        string
	Amount      int64
	Penalty     int64
	Active      time.Time // zero when none
	Due         time.Time
	Expiry      time.Time
	State       State
	RawState    string
	AmountPaid  int64
	PaidAt      time.Time // zero until paid
	RefNumber   string
	Notes       string
	CreatedAt   time.Time
	// UpdatedAt moves on every change the service makes (upload, update,
	// payment, deletion); a state that changes with the date alone
	// (provisioned to expired) does not move it.
	UpdatedAt time.Time
}

// The day rule (docs/upstream.md): "today" is a date in the service zone,
// component days are the UTC dates of their timestamps. Callers pass
// today = now.In(loc); its own Y-M-D is compared with the UTC Y-M-D of
// Due and Expiry, so the helpers agree with the service whatever zone the
// host runs in.

// DayIn is the calendar day of instant t in zone loc (nil is UTC) at UTC midnight, the
// form component days take: DayIn(now, service zone) is "today", and DayIn(d, time.UTC)
// the day a component timestamp stands for; the two then compare directly.
func DayIn(t time.Time, loc *time.Location) time.Time {
	if loc == nil {
		loc = time.UTC
	}
	y, m, d := t.In(loc).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// civil is a calendar date as a count of days, for comparing and subtracting.
func civil(y int, m time.Month, d int) int {
	return int(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400)
}

// localDay is t's own calendar date (t already in the service zone).
func localDay(t time.Time) int { return civil(t.Date()) }

// utcDay is the calendar day a component timestamp stands for.
func utcDay(t time.Time) int { return civil(t.UTC().Date()) }

// expired is true when the service has or would have marked b expired on today.
func (b Bill) expired(today time.Time) bool {
	return b.State == StateExpired || !b.Expiry.IsZero() && localDay(today) > utcDay(b.Expiry)
}

// IsLate reports an unpaid component past its due day and not yet expired,
// i.e. one that costs the penalty today; today is now.In(service zone).
func (b Bill) IsLate(today time.Time) bool {
	return b.State != StatePaid && b.State != StateDeleted && !b.expired(today) && localDay(today) > utcDay(b.Due)
}

// DueToday is what paying b costs on today (now.In(service zone)): the
// amount, plus the penalty when late; 0 when paid, deleted or expired.
func (b Bill) DueToday(today time.Time) int64 {
	if b.State == StatePaid || b.State == StateDeleted || b.expired(today) {
		return 0
	}
	if b.IsLate(today) {
		return b.Amount + b.Penalty
	}
	return b.Amount
}

// DaysLate counts days from the due day to today (now.In(service zone)):
// >0 late by n days, <0 due in n days, 0 due today.
func (b Bill) DaysLate(today time.Time) int {
	return localDay(today) - utcDay(b.Due)
}

// ReminderDay is the day the service reminds the student: two days before
// the due day, as a UTC-midnight time like Due.
func (b Bill) ReminderDay() time.Time {
	return DayIn(b.Due, time.UTC).AddDate(0, 0, -2)
}
