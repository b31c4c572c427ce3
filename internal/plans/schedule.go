package plans

import (
	"fmt"
	"time"

	"github.com/sekolah/portal/internal/corrections"
	"github.com/sekolah/portal/internal/i18n"
)

// Period is one charge of a plan: the month it starts (its key), its name as bursars
// write it, and its days.
type Period struct {
	Month Month
	// Months is how many months it covers (6 for a semester).
	Months int
	// Part and Parts number an instalment of a one-time plan (1 of 3); 0 otherwise.
	Part, Parts int
	// Name is the component's name: "SPP Juli 2026", "SPP Semester Ganjil 2026/2027",
	// "Uang Pangkal", "Uang Pangkal, cicilan 1/3". Always in Indonesian: it is what the
	// service keeps and what parents see at the bank.
	Name string
	// Due is the plan's due day in the period's first month; Expiry the plan's days
	// after it; Active the period's first day (a parent cannot pay it before).
	Due, Expiry, Active time.Time
}

// Last is the period's last month.
func (p Period) Last() Month { return p.Month.Add(max(p.Months, 1) - 1) }

// Periods are every period of the plan, in order.
func (p Plan) Periods() []Period { return p.PeriodsIn(p.From, p.To) }

// PeriodsIn are the plan's periods that start from `from` to `to` (both months included;
// a zero month leaves that end at the plan's).
func (p Plan) PeriodsIn(from, to Month) []Period {
	if from.IsZero() || from < p.From {
		from = p.From
	}
	if to.IsZero() || to > p.To {
		to = p.To
	}
	var out []Period
	switch p.Frequency {
	case Once:
		n := max(p.Instalments, 1)
		for i := range n {
			m := p.From.Add(i)
			if m < from || m > to {
				continue
			}
			name := p.ItemName
			part, parts := 0, 0
			if n > 1 {
				part, parts = i+1, n
				name = fmt.Sprintf("%s, cicilan %d/%d", p.ItemName, part, parts)
			}
			out = append(out, p.period(m, 1, name, part, parts))
		}
	default:
		step := p.Frequency.months()
		for m := p.From; m <= p.To; m = m.Add(step) {
			if m < from || m > to {
				continue
			}
			out = append(out, p.period(m, step, p.periodName(m), 0, 0))
		}
	}
	return out
}

// Period is the plan's period that starts in month m; false when none does.
func (p Plan) Period(m Month) (Period, bool) {
	for _, pe := range p.PeriodsIn(m, m) {
		if pe.Month == m {
			return pe, true
		}
	}
	return Period{}, false
}

func (p Plan) period(m Month, months int, name string, part, parts int) Period {
	due := m.Day(p.DueDay)
	return Period{Month: m, Months: months, Part: part, Parts: parts, Name: name, Due: due,
		Expiry: due.AddDate(0, 0, p.ExpiryDays), Active: m.First()}
}

// periodName is a monthly or semester period's component name.
func (p Plan) periodName(m Month) string {
	if p.Frequency == Semester {
		half := "Ganjil"
		if m.Month() < time.July {
			half = "Genap"
		}
		return fmt.Sprintf("%s Semester %s %s", p.ItemName, half, m.SchoolYear())
	}
	return fmt.Sprintf("%s %s %d", p.ItemName, i18n.MonthFull(i18n.Indonesian, m.Month()), m.Year())
}

// fullParts are the shares of price of a one-time fee's parts: internal/corrections'
// rule for every split into instalments (equal parts, in thousands when the price is
// whole thousands, the remainder on the last), so a plan's instalments and a bill split
// later read alike.
func fullParts(price int64, parts int) []int64 { return corrections.Splits(price, max(parts, 1)) }

// split is an instalment's share of price (all of it for a plan without instalments).
func split(price int64, pe Period) int64 {
	if pe.Parts <= 1 {
		return price
	}
	return fullParts(price, pe.Parts)[pe.Part-1]
}

// chargedParts split charged, what the whole fee costs after its discount, over the
// parts whose full shares are fulls: the same rule as fullParts, then no part above its
// full share (a discount is never negative on a part); what the rounding put above one
// goes to the parts with room, the last first. The parts add up to charged exactly.
func chargedParts(fulls []int64, charged int64) []int64 {
	out := corrections.Splits(charged, len(fulls))
	var excess int64
	for i, f := range fulls {
		if out[i] > f {
			excess += out[i] - f
			out[i] = f
		}
	}
	for i := len(out) - 1; i >= 0 && excess > 0; i-- {
		room := min(fulls[i]-out[i], excess)
		out[i] += room
		excess -= room
	}
	return out
}

// splitCharged is an instalment's share of charged, the whole fee price less its
// discount (chargedParts).
func splitCharged(price, charged int64, pe Period) int64 {
	if pe.Parts <= 1 {
		return charged
	}
	return chargedParts(fullParts(price, pe.Parts), charged)[pe.Part-1]
}
