package sandbox

import (
	"strconv"
	"time"
)

// timeLayout is the plain timestamp form the service emits.
const timeLayout = "2006-01-02T15:04:05Z"

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

// parseTimestamp reads an RFC 3339 timestamp (fractional seconds allowed) as UTC.
func parseTimestamp(v string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil || t.Year() < 1900 || t.Year() > 9999 {
		return time.Time{}, false
	}
	return t.UTC(), true
}

func formatUnix(sec int64) string { return time.Unix(sec, 0).UTC().Format(timeLayout) }

func formatNanos(ns int64) string { return time.Unix(0, ns).UTC().Format(timeLayout) }

func itoa(n int) string { return strconv.Itoa(n) }
