package uploads

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/sekolah/portal/internal/i18n"
)

// Why a date cell could not be read; the validator turns them into the person's language.
// Amounts are read by i18n.ParseRupiahCell, with its errors.
var (
	// ErrNotDate: the cell is not a date in any accepted form.
	ErrNotDate = errors.New("uploads: not a date")
	// ErrDateRange: a real date, but outside the years a school bill can have.
	ErrDateRange = errors.New("uploads: date out of range")
)

// Years a component date may fall in. Arrears from earlier years are fine; a year like
// 1905 or 20226 is a typo (or an Excel serial of a number that was not meant as a date).
const (
	MinYear = 2000
	MaxYear = 2100
)

// isDigits reports a non-empty run of ASCII digits (strconv alone would also take a sign).
func isDigits(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }

// ParseDate reads a calendar day the way it reaches us: an Excel date cell (a serial
// number; date1904 for workbooks on the 1904 system), 2026-12-10, 10/12/2026 (day first,
// as Indonesia writes it; also with - or .), 10 Des 2026 or 10-Dec-2026 (month names in
// Indonesian or English, short or full). A time of day is ignored. The result is the day
// at UTC midnight, as the billing service wants it.
func ParseDate(s string, date1904 bool) (time.Time, error) {
	s = i18n.TrimSpace(s)
	if s == "" {
		return time.Time{}, ErrNotDate
	}
	if isSerial(s) {
		return serialDate(s, date1904)
	}
	// Drop a leading weekday ("Kamis, 10 Des 2026").
	if i := strings.IndexByte(s, ','); i > 0 && i < 10 && !hasDigit(s[:i]) {
		s = i18n.TrimSpace(s[i+1:])
	}
	// Drop a time of day: "2026-12-10T08:00:00Z", "10/12/2026 08:00", "10 Des 2026 08.00".
	if i := strings.IndexByte(s, 'T'); i == 10 && s[4] == '-' {
		s = s[:i]
	}
	if i := strings.IndexByte(s, ':'); i > 0 {
		if j := strings.LastIndexByte(s[:i], ' '); j > 0 {
			s = i18n.TrimSpace(s[:j])
		}
	}
	if j := strings.LastIndexByte(s, ' '); j > 0 && isClock(s[j+1:]) {
		s = i18n.TrimSpace(s[:j]) // "10 Des 2026 08.00"
	}
	y, m, d, ok := splitDate(s)
	if !ok {
		return time.Time{}, ErrNotDate
	}
	return makeDay(y, m, d)
}

// isClock reports a time of day written with dots: 8.00, 08.00.00.
func isClock(s string) bool {
	parts := strings.Split(s, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return false
	}
	for i, p := range parts {
		if _, ok := smallInt(p, 2); !ok || (i > 0 && len(p) != 2) {
			return false
		}
	}
	return true
}

func hasDigit(s string) bool { return strings.ContainsAny(s, "0123456789") }

// isSerial reports whether s looks like an Excel serial: digits with an optional fraction.
func isSerial(s string) bool {
	dot := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
		case c == '.' && !dot && i > 0:
			dot = true
		default:
			return false
		}
	}
	return len(s) <= 20
}

// excelEpoch is day 0 of the 1900 date system as Excel counts after its 1900-02-29 bug:
// serial 61 is 1900-03-01, so counting from 1899-12-30 is right for every date since.
var (
	excelEpoch1900 = time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC)
	excelEpoch1904 = time.Date(1904, 1, 1, 0, 0, 0, 0, time.UTC)
)

func serialDate(s string, date1904 bool) (time.Time, error) {
	whole := s
	if i := strings.IndexByte(s, '.'); i >= 0 {
		whole = s[:i] // the fraction is the time of day
	}
	// isSerial let only digits through; too many of them is an error here.
	n, err := strconv.Atoi(whole)
	if err != nil || n > 2_958_465 { // 9999-12-31
		return time.Time{}, ErrNotDate
	}
	epoch := excelEpoch1900
	if date1904 {
		epoch = excelEpoch1904
	}
	t := epoch.AddDate(0, 0, n)
	if t.Year() < MinYear || t.Year() > MaxYear {
		return time.Time{}, ErrDateRange
	}
	return t, nil
}

// splitDate reads year, month and day from the text forms.
func splitDate(s string) (y, m, d int, ok bool) {
	parts, n := fields(s)
	if n != 3 {
		return 0, 0, 0, false
	}
	a, b, c := parts[0], parts[1], parts[2]
	if mon, isName := i18n.ParseMonthShort(b); isName {
		// 10 Des 2026
		d, ok1 := smallInt(a, 2)
		y, ok2 := year(c)
		return y, int(mon), d, ok1 && ok2
	}
	if mon, isName := i18n.ParseMonthShort(a); isName {
		// Dec 10 2026 (the comma is gone with the separators)
		d, ok1 := smallInt(b, 2)
		y, ok2 := year(c)
		return y, int(mon), d, ok1 && ok2
	}
	if len(a) == 4 {
		// 2026-12-10, 2026/12/10
		y, ok1 := smallInt(a, 4)
		m, ok2 := smallInt(b, 2)
		d, ok3 := smallInt(c, 2)
		return y, m, d, ok1 && ok2 && ok3
	}
	// 10/12/2026, 10-12-26: day first.
	d, ok1 := smallInt(a, 2)
	m, ok2 := smallInt(b, 2)
	y, ok3 := year(c)
	return y, m, d, ok1 && ok2 && ok3
}

// fields splits on the date separators (space, /, -, ., comma) without allocating; more
// than three parts is reported as four.
func fields(s string) ([3]string, int) {
	var out [3]string
	n := 0
	start := -1
	for i := 0; i <= len(s); i++ {
		sep := i == len(s)
		if !sep {
			switch s[i] {
			case ' ', '/', '-', '.', ',', '\t':
				sep = true
			}
		}
		if sep {
			if start >= 0 {
				if n == len(out) {
					return out, n + 1
				}
				out[n] = s[start:i]
				n++
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	return out, n
}

func smallInt(s string, maxLen int) (int, bool) {
	if len(s) > maxLen || !isDigits(s) {
		return 0, false
	}
	v, err := strconv.Atoi(s)
	return v, err == nil
}

// year reads a four-digit year, or two digits as 20xx.
func year(s string) (int, bool) {
	switch len(s) {
	case 2:
		v, ok := smallInt(s, 2)
		return 2000 + v, ok
	case 4:
		return smallInt(s, 4)
	}
	return 0, false
}

func makeDay(y, m, d int) (time.Time, error) {
	if m < 1 || m > 12 || d < 1 || d > 31 {
		return time.Time{}, ErrNotDate
	}
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if t.Day() != d { // 31/11, 29/02/2027
		return time.Time{}, ErrNotDate
	}
	if y < MinYear || y > MaxYear {
		return time.Time{}, ErrDateRange
	}
	return t, nil
}
