package ledger

import "strings"

// What a component is today, in SQL: the second implementation of component.On.
//
// The first is internal/component (state.go: On, a component's status, price, penalty and
// days late on a day), built on the billing package's day rule (internal/billing, bill.go:
// IsLate, DueToday, DaysLate), which is the source: a component's days are the UTC dates
// of its timestamps, today is the date in the school's zone, a component is expired once
// today is past its expiry day (or the service says so), late once past its due day and
// not expired, and paying it costs its amount, plus the penalty when late, nothing when
// paid, deleted or expired. The ledger needs the same rule in SQL, over a million rows or
// the summary tables' groups, so it is written once more here, and only here: every
// ledger query that asks what a component costs today, or whether it is late or expired,
// builds its SQL from onDay (componentsOn, groupsOn). TestOnDayIsComponentOn pins these fragments to component.On
// over random components and days on every engine.
//
// The ledger stores no state that depends on the day: an open component (kind 0) is
// expired or not by its expiry_day and today, whatever the service said when it was last
// read (a state read as "expired" is after its expiry day by then).

// onDay writes the fragments over one table's columns on day today.
type onDay struct {
	p string // the columns' qualifier with its dot ("c."), or "" for a table without alias
	t string // today's placeholder, a day number ("$3")
	// openOnly: the table holds open components only (ledger_open_totals) and has no kind.
	openOnly bool
}

// componentsOn is the fragments over the components' columns of alias (empty:
// unqualified) on day placeholder t.
func componentsOn(alias, t string) onDay {
	if alias != "" {
		alias += "."
	}
	return onDay{p: alias, t: t}
}

// groupsOn is the fragments over ledger_open_totals' groups on day placeholder t: open
// components only, amounts and penalties summed per group of the same due and expiry
// days, so a group's price is the sum of its components' prices.
func groupsOn(t string) onDay { return onDay{t: t, openOnly: true} }

// is joins the conditions with the component being open (not paid, not deleted).
func (d onDay) is(conds ...string) string {
	if !d.openOnly {
		conds = append([]string{d.p + "kind = 0"}, conds...)
	}
	return "(" + strings.Join(conds, " AND ") + ")"
}

// payable: open and not past its expiry day (provisioned or overdue): it can be paid.
func (d onDay) payable() string { return d.is(d.p + "expiry_day >= " + d.t) }

// expired: open and past its expiry day; no longer payable. (component.On reads a
// deleted component as expired too; the ledger's queries leave deleted ones out.)
func (d onDay) expired() string { return d.is(d.p + "expiry_day < " + d.t) }

// late: payable and past its due day (overdue): paying it costs the penalty too.
func (d onDay) late() string { return d.is(d.p+"expiry_day >= "+d.t, d.p+"due_day < "+d.t) }

// notDue: payable and not past its due day (due today or later).
func (d onDay) notDue() string { return d.is(d.p+"expiry_day >= "+d.t, d.p+"due_day >= "+d.t) }

// arrears: open and past its due day, payable or not: the overdue ones and the expired
// ones together (an unpaid bill past its expiry is still owed; only paying it needs its
// expiry extended first).
func (d onDay) arrears() string {
	return d.is("(" + d.p + "due_day < " + d.t + " OR " + d.p + "expiry_day < " + d.t + ")")
}

// daysLate counts the days from the due day to today: > 0 late, < 0 due in so many days.
func (d onDay) daysLate() string { return "(" + d.t + " - " + d.p + "due_day)" }

// penalty is what paying today adds to the amount: the penalty when late, else 0.
func (d onDay) penalty() string {
	return "(CASE WHEN " + d.late() + " THEN " + d.p + "penalty ELSE 0 END)"
}

// price is what paying today costs: the amount, plus the penalty when late; 0 when
// paid, deleted or expired.
func (d onDay) price() string {
	return "(CASE WHEN " + d.payable() + " THEN " + d.p + "amount + CASE WHEN " + d.p + "due_day < " + d.t +
		" THEN " + d.p + "penalty ELSE 0 END ELSE 0 END)"
}

// owed is what the student still owes for an open component: its price today when it
// can be paid, its face amount when expired (what extending its expiry makes payable
// again, before any late fee); 0 when paid or deleted.
func (d onDay) owed() string {
	return "(CASE WHEN " + d.expired() + " THEN " + d.p + "amount ELSE " + d.price() + " END)"
}

// status is component.Status: 'paid', 'expired' (deleted ones too), 'overdue' or
// 'provisioned'.
func (d onDay) status() string {
	paid, gone := "", ""
	if !d.openOnly {
		paid = " WHEN " + d.p + "kind = 1 THEN 'paid'"
		gone = d.p + "kind = 2 OR "
	}
	return "(CASE" + paid + " WHEN " + gone + d.p + "expiry_day < " + d.t + " THEN 'expired' WHEN " + d.p + "due_day < " + d.t +
		" THEN 'overdue' ELSE 'provisioned' END)"
}
