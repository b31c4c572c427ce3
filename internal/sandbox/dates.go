package sandbox

import (
	"strconv"
	"strings"
	"time"
)

// timeLayout is the plain timestamp form of a whole second in UTC.
const timeLayout = "2006-01-02T15:04:05Z"

// Timestamp layouts the service emits: microseconds only when not zero.
const (
	zonedLayout    = "2006-01-02T15:04:05.999999Z07:00"
	zonelessLayout = "2006-01-02T15:04:05.999999"
)

// stamps formats the service's timestamps: in UTC with a Z, or (zoneless,
// as some real services answer) the wall clock of the service zone with no
// zone at all, which a client must read as service time.
type stamps struct {
	loc      *time.Location
	zoneless bool
}

func (f stamps) format(t time.Time) string {
	if f.zoneless {
		return t.In(f.loc).Format(zonelessLayout)
	}
	return t.UTC().Format(zonedLayout)
}

func (f stamps) unix(sec int64) string { return f.format(time.Unix(sec, 0)) }

func (f stamps) nanos(ns int64) string { return f.format(time.Unix(0, ns)) }

// dayOf is the calendar date of t (in t's own location) as YYYYMMDD.
func dayOf(t time.Time) int {
	y, m, d := t.Date()
	return y*10000 + int(m)*100 + d
}

// addDays moves a YYYYMMDD date by n calendar days.
func addDays(day, n int) int {
	return dayOf(time.Date(day/10000, time.Month(day/100%100), day%100+n, 0, 0, 0, 0, time.UTC))
}

// parseDay reads a YYYYMMDD filter; ok is false unless it is a real date.
func parseDay(v string) (int, bool) {
	if len(v) != 8 {
		return 0, false
	}
	t, err := time.Parse("20060102", v)
	if err != nil {
		return 0, false
	}
	return dayOf(t), true
}

// parseTimestamp reads an RFC 3339 timestamp (fractional seconds allowed,
// 2026-01-10T00:00:00.000Z as the provider's libraries send) as UTC.
func parseTimestamp(v string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(v))
	if err != nil || t.Year() < 1900 || t.Year() > 9999 {
		return time.Time{}, false
	}
	return t.UTC(), true
}

// noActiveDate reports the values that mean "no active date": empty, or the
// Unix epoch the provider's libraries send when none was given.
func noActiveDate(v string) bool {
	v = strings.TrimSpace(v)
	if v == "" {
		return true
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	return err == nil && t.Unix() == 0
}

func itoa(n int) string { return strconv.Itoa(n) }
