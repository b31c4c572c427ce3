package billlist

import (
	"cmp"
	"slices"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/component"
)

// UpcomingDays is how many days, today included, the upcoming dues page looks ahead.
const UpcomingDays = 7

// UpcomingRange is the first and last due day the upcoming page covers: today and the
// following UpcomingDays-1 days.
func UpcomingRange(today time.Time) (first, last time.Time) {
	first = billing.DayIn(today, today.Location())
	return first, first.AddDate(0, 0, UpcomingDays-1)
}

// UpcomingQuery asks the ledger for the unpaid components due in the range.
func UpcomingQuery(today time.Time) billing.Query {
	first, last := UpcomingRange(today)
	return billing.Query{State: billing.StateProvisioned, DueFrom: first, DueTo: last}
}

// ReminderSent reports whether the service has reminded the student of b by today: the
// reminder goes out on b.ReminderDay (two days before the due day).
func ReminderSent(b billing.Bill, today time.Time) bool {
	return !b.ReminderDay().After(billing.DayIn(today, today.Location()))
}

// Upcoming is one component due soon.
type Upcoming struct {
	Bill billing.Bill
	// ReminderSent: the reminder went out (its day is today or past).
	ReminderSent bool
	// ReminderIn is the days until the reminder goes out (> 0 when not sent).
	ReminderIn int
}

// DueDay is one day of the upcoming page with its components.
type DueDay struct {
	Day   time.Time
	Items []Upcoming
	Total int64
}

// UpcomingDues is the upcoming page: days in order, each with its components.
type UpcomingDues struct {
	First, Last  time.Time
	Days         []DueDay
	Count        int
	Total        int64
	RemindedSoon int // reminders still to go out within the range
	Reminded     int // reminders already out
}

// GroupUpcoming keeps the unpaid, payable components due in the range and groups them by
// due day (earliest first; within a day by NIS). Days without dues are left out.
func GroupUpcoming(bs []billing.Bill, today time.Time) UpcomingDues {
	first, last := UpcomingRange(today)
	u := UpcomingDues{First: first, Last: last}
	byDay := map[time.Time]int{}
	sorted := make([]billing.Bill, 0, len(bs))
	for _, b := range bs {
		due := billing.DayIn(b.Due, time.UTC)
		if st := component.On(b, today).Status; st == component.StatusPaid || st == component.StatusExpired || due.Before(first) || due.After(last) {
			continue
		}
		sorted = append(sorted, b)
	}
	slices.SortStableFunc(sorted, func(a, b billing.Bill) int {
		return cmp.Or(a.Due.Compare(b.Due), compareNIS(a.NIS, b.NIS))
	})
	for _, b := range sorted {
		due := billing.DayIn(b.Due, time.UTC)
		i, ok := byDay[due]
		if !ok {
			i = len(u.Days)
			byDay[due] = i
			u.Days = append(u.Days, DueDay{Day: due})
		}
		it := Upcoming{Bill: b, ReminderSent: ReminderSent(b, today)}
		if it.ReminderSent {
			u.Reminded++
		} else {
			it.ReminderIn = int(b.ReminderDay().Sub(first).Hours() / 24) // first is today
			u.RemindedSoon++
		}
		price := component.On(b, today).Price
		d := &u.Days[i]
		d.Items = append(d.Items, it)
		d.Total += price
		u.Count++
		u.Total += price
	}
	return u
}
