// Package clock is the portal's one clock: the moment now, the school's time zone, and the
// school's date today. internal/app builds it once from the configuration (PORTAL_TZ) and
// hands it to every service; nothing else in internal/ reads the system's time (the
// architecture test checks it), so a page, a letter, a receipt and a reminder printed at
// 01:30 WIB all carry the school's date, not the UTC one.
//
// Two forms of "today" are used across the portal, both from here:
//   - Today: the instant now in the school's zone. The day rule of internal/billing and
//     internal/component takes this form (its own Y-M-D is the school's date).
//   - Day: the school's date at midnight UTC, the form component days take
//     (billing.DayIn(now, zone)); two days in this form compare and subtract directly.
package clock

import "time"

// Clock is the portal's clock. The zero Clock is not usable: build one with New, System or
// Fixed, so that no service silently falls back to UTC or to the host's zone.
type Clock struct {
	now func() time.Time
	loc *time.Location
}

// New is a clock reading now from now (time.Now when nil) in the school's zone loc, which
// must not be nil.
func New(now func() time.Time, loc *time.Location) Clock {
	if loc == nil {
		panic("clock: the school's time zone is required")
	}
	if now == nil {
		now = time.Now
	}
	return Clock{now: now, loc: loc}
}

// System is the system's clock in the school's zone loc.
func System(loc *time.Location) Clock { return New(time.Now, loc) }

// Fixed is a clock that always reads t, in the school's zone loc (for tests).
func Fixed(t time.Time, loc *time.Location) Clock {
	return New(func() time.Time { return t }, loc)
}

// IsZero reports whether c is the zero Clock, for constructors that refuse one with an
// error rather than a panic at first use.
func (c Clock) IsZero() bool { return c.loc == nil }

func (c Clock) check() {
	if c.loc == nil {
		panic("clock: a zero Clock was used; build one with clock.New (internal/app hands every service the portal's)")
	}
}

// Now is the moment now, in UTC.
func (c Clock) Now() time.Time {
	c.check()
	return c.now().UTC()
}

// Zone is the school's time zone (PORTAL_TZ).
func (c Clock) Zone() *time.Location {
	c.check()
	return c.loc
}

// Today is the moment now in the school's zone: its Y-M-D is the school's date. This is
// the "today" the day rule takes (billing.Bill.IsLate, component.On).
func (c Clock) Today() time.Time {
	c.check()
	return c.now().In(c.loc)
}

// Day is the school's date today at midnight UTC, the form component days take.
func (c Clock) Day() time.Time { return c.DayOf(c.Now()) }

// DayOf is the school's date of instant t at midnight UTC.
func (c Clock) DayOf(t time.Time) time.Time {
	c.check()
	y, m, d := t.In(c.loc).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// In is instant t in the school's zone, for showing it.
func (c Clock) In(t time.Time) time.Time {
	c.check()
	return t.In(c.loc)
}

// Since is the time elapsed since t.
func (c Clock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

// Until is the time until t.
func (c Clock) Until(t time.Time) time.Duration { return t.Sub(c.Now()) }

// Func is the clock's Now as a function, for the few parts below the domain (the
// billing client, the store) that take a function rather than depend on this package.
func (c Clock) Func() func() time.Time {
	c.check()
	return c.Now
}

// Deadline is the moment d from now on the system's clock, for a deadline of I/O (a
// network connection's read deadline): the operating system keeps those on the wall
// clock, whatever the portal's clock says (a test fixes the portal's, never the network's).
func Deadline(d time.Duration) time.Time { return time.Now().Add(d) }
