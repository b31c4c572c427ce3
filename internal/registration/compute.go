package registration

import (
	"strconv"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/internal/store"
)

// resolve gives the calendar day of rule r for a registration on day.
func resolve(r store.DayRule, day time.Time) time.Time {
	if r.IsFixed() {
		return billing.DayIn(r.Fixed, time.UTC)
	}
	return day.AddDate(0, 0, r.Offset)
}

// Item is one component of a registration: the checkout component computed from a
// template line, and whether the person may leave it out.
type Item struct {
	LineID    string
	Optional  bool
	Component billing.CheckoutComponent
}

// Compute returns the checkout components of template t for a registration on day (a
// UTC-midnight day, see Service.Today), one per line in order. Lines whose days do not
// fit that day are problems of the "template" field: a fixed expiry already past (the
// component could never be paid), a fixed due day already past (it would cost the
// penalty at once), or a due day after the expiry day.
func Compute(t store.FeeTemplate, day time.Time) ([]Item, problem.List) {
	var ps problem.List
	items := make([]Item, 0, len(t.Lines))
	for _, l := range t.Lines {
		due, expiry := resolve(l.Due, day), resolve(l.Expiry, day)
		switch {
		case expiry.Before(day):
			ps.Add("template", "registration.err.line_expired", l.Name)
		case due.Before(day):
			ps.Add("template", "registration.err.line_past_due", l.Name)
		case due.After(expiry):
			ps.Add("template", "registration.err.line_order", l.Name)
		}
		items = append(items, Item{LineID: l.ID, Optional: l.Optional, Component: billing.CheckoutComponent{
			AccountCode: l.AccountCode, Name: l.Name, Due: due, Expiry: expiry,
			Amount: l.Amount, Penalty: l.Penalty, Description: l.Description,
		}})
	}
	return items, ps
}

// Select keeps the lines that are not optional and the optional ones include says yes to.
func Select(items []Item, include func(lineID string) bool) []Item {
	out := make([]Item, 0, len(items))
	for _, it := range items {
		if !it.Optional || include == nil || include(it.LineID) {
			out = append(out, it)
		}
	}
	return out
}

// Total is the sum of the amounts of items.
func Total(items []Item) int64 {
	var sum int64
	for _, it := range items {
		sum += it.Component.Amount
	}
	return sum
}

// Fingerprint names what a review showed: the template's version and the day. A confirm
// carrying another fingerprint was reviewed on different figures and must be reviewed again.
func Fingerprint(t store.FeeTemplate, day time.Time) string {
	return t.ID + "@" + strconv.FormatInt(t.UpdatedAt.UnixMicro(), 10) + "@" + day.Format(time.DateOnly)
}
