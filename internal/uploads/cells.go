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

// ParseDate reads a calendar day the way it reaches us: an Excel date cell (a serial
// number; date1904 for workbooks on the 1904 system) or any text i18n.ParseDay reads
// (2026-12-10, 10/12/2026, 10 Des 2026, ...). The result is the day at UTC midnight, as
// the billing service wants it, in the years MinYear to MaxYear.
func ParseDate(s string, date1904 bool) (time.Time, error) {
	s = i18n.TrimSpace(s)
	if s == "" {
		return time.Time{}, ErrNotDate
	}
	if isSerial(s) {
		return serialDate(s, date1904)
	}
	t, err := i18n.ParseDay(s)
	if err != nil {
		return time.Time{}, ErrNotDate
	}
	if t.Year() < MinYear || t.Year() > MaxYear {
		return time.Time{}, ErrDateRange
	}
	return t, nil
}

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
