package plans

import (
	"fmt"
	"time"

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

// split is an instalment's share of price (all of it for a plan without instalments):
// equal parts rounded down to the rupiah, the remainder on the last, so the parts add up
// to price exactly.
func split(price int64, pe Period) int64 {
	if pe.Parts <= 1 {
		return price
	}
	base := price / int64(pe.Parts)
	if pe.Part == pe.Parts {
		return price - base*int64(pe.Parts-1)
	}
	return base
}

// splitCharged is an instalment's share of charged, what the whole fee price costs after
// its discount: equal parts rounded down, the remainder on the last, as split does; but
// never more than the part's share of the full price. When the remainder would put the
// last part above its full share (a few rupiah, from rounding), the excess goes one
// rupiah each to the first parts, which then have room: the parts still add up to
// charged exactly, and no part's discount is negative.
func splitCharged(price, charged int64, pe Period) int64 {
	if pe.Parts <= 1 {
		return charged
	}
	n := int64(pe.Parts)
	base := charged / n
	last := charged - base*(n-1)
	excess := max(last-split(price, Period{Part: pe.Parts, Parts: pe.Parts}), 0)
	if pe.Part == pe.Parts {
		return last - excess
	}
	if int64(pe.Part) <= excess {
		return base + 1
	}
	return base
}
