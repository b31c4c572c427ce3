package uploads

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sekolah/portal/internal/i18n"
)

// Why a cell could not be read; the validator turns them into the person's language.
var (
	// ErrNotNumber: the cell is not a number in any form people type.
	ErrNotNumber = errors.New("uploads: not a number")
	// ErrFraction: a number with a non-zero fraction, which rupiah do not have.
	ErrFraction = errors.New("uploads: not whole rupiah")
	// ErrTooLarge: more than MaxAmount.
	ErrTooLarge = errors.New("uploads: amount too large")
	// ErrNotDate: the cell is not a date in any accepted form.
	ErrNotDate = errors.New("uploads: not a date")
	// ErrDateRange: a real date, but outside the years a school bill can have.
	ErrDateRange = errors.New("uploads: date out of range")
)

// MaxAmount bounds amounts so a stray digit cannot ask a parent for trillions; it is far
// above any school fee and well inside int64.
const MaxAmount int64 = 999_999_999_999

// Years a component date may fall in. Arrears from earlier years are fine; a year like
// 1905 or 20226 is a typo (or an Excel serial of a number that was not meant as a date).
const (
	MinYear = 2000
	MaxYear = 2100
)

// ParseAmount reads whole rupiah the way they are typed in Indonesian sheets: 1250000,
// 1.250.000, Rp 1.250.000, Rp1.250.000,-, 1.250.000,00, 1 250 000, also 1,250,000 and
// the raw numbers Excel stores (1250000, 1.25E+6, 1250000.0000000002). A negative amount
// is returned as such; whether it is allowed is the validator's business.
func ParseAmount(s string) (int64, error) {
	s = trimSpace(s)
	neg := false
	if strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") { // accounting negative
		neg, s = true, trimSpace(s[1:len(s)-1])
	}
	s, neg = stripSign(s, neg)
	s = stripCurrency(s)
	s, neg = stripSign(s, neg)
	s = strings.TrimSuffix(strings.TrimSuffix(s, ",-"), ".-")
	s = trimSpace(s)
	if s == "" {
		return 0, ErrNotNumber
	}
	v, err := parseUnsignedAmount(s)
	if err != nil {
		return 0, err
	}
	if neg {
		v = -v
	}
	return v, nil
}

func stripSign(s string, neg bool) (string, bool) {
	switch {
	case strings.HasPrefix(s, "-"):
		return trimSpace(s[1:]), !neg
	case strings.HasPrefix(s, "−"): // U+2212, what some keyboards and Word insert
		return trimSpace(s[len("−"):]), !neg
	case strings.HasPrefix(s, "+"):
		return trimSpace(s[1:]), neg
	}
	return s, neg
}

// stripCurrency removes a leading "Rp", "Rp." or "IDR" and a trailing "IDR" or "rupiah".
func stripCurrency(s string) string {
	if len(s) >= 2 && (s[0] == 'R' || s[0] == 'r') && (s[1] == 'p' || s[1] == 'P') {
		s = trimSpace(strings.TrimPrefix(s[2:], "."))
	} else if len(s) >= 3 && strings.EqualFold(s[:3], "IDR") {
		s = trimSpace(s[3:])
	}
	for _, suffix := range []string{"IDR", "rupiah"} {
		if len(s) > len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix) {
			s = trimSpace(s[:len(s)-len(suffix)])
		}
	}
	return s
}

func parseUnsignedAmount(s string) (int64, error) {
	// The common cases first, without any allocation: plain digits.
	if v, ok := digitsOnly(s); ok {
		return v, checkAmount(v)
	}
	if strings.ContainsAny(s, "eE") {
		return floatAmount(s)
	}
	dots, commas, spaces := strings.Count(s, "."), strings.Count(s, ","), strings.Count(s, " ")
	var intPart, frac string
	switch {
	case dots > 0 && commas > 0:
		// Both: the last one is the decimal separator, the other groups thousands.
		dec, grp := byte(','), byte('.')
		if strings.LastIndexByte(s, '.') > strings.LastIndexByte(s, ',') {
			dec, grp = '.', ','
		}
		i := strings.LastIndexByte(s, dec)
		if strings.Count(s, string(dec)) != 1 {
			return 0, ErrNotNumber
		}
		intPart, frac = s[:i], s[i+1:]
		var ok bool
		if intPart, ok = ungroup(intPart, grp); !ok {
			return 0, ErrNotNumber
		}
	case dots > 0 || commas > 0:
		sep := byte('.')
		if commas > 0 {
			sep = ','
		}
		if g, ok := ungroup(s, sep); ok {
			intPart = g
		} else if dots+commas == 1 {
			i := strings.IndexByte(s, sep)
			intPart, frac = s[:i], s[i+1:]
			if sep == '.' && spaces == 0 {
				// A raw Excel number such as 1250000.0000000002: a float artefact of a
				// formula, not a typed fraction.
				if v, err := floatAmount(s); err == nil {
					return v, nil
				}
			}
		} else {
			return 0, ErrNotNumber
		}
	case spaces > 0:
		g, ok := ungroup(s, ' ')
		if !ok {
			return 0, ErrNotNumber
		}
		intPart = g
	default:
		return 0, ErrNotNumber
	}
	if spaces > 0 && intPart != "" && strings.IndexByte(intPart, ' ') >= 0 {
		g, ok := ungroup(intPart, ' ')
		if !ok {
			return 0, ErrNotNumber
		}
		intPart = g
	}
	v, ok := digitsOnly(intPart)
	if !ok {
		return 0, ErrNotNumber
	}
	for i := 0; i < len(frac); i++ {
		switch {
		case frac[i] < '0' || frac[i] > '9':
			return 0, ErrNotNumber
		case frac[i] != '0':
			return 0, ErrFraction
		}
	}
	return v, checkAmount(v)
}

func checkAmount(v int64) error {
	if v > MaxAmount {
		return ErrTooLarge
	}
	return nil
}

// digitsOnly parses a non-empty run of ASCII digits; more than 15 digits is out of range.
func digitsOnly(s string) (int64, bool) {
	if s == "" || len(s) > 18 {
		return 0, false
	}
	var v int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}

// ungroup removes thousands separators when s is grouped properly: one to three digits,
// then groups of exactly three ("1.250.000"); "1.25" or "12.5000" are not groupings.
func ungroup(s string, sep byte) (string, bool) {
	first := strings.IndexByte(s, sep)
	if first < 1 || first > 3 {
		return "", false
	}
	var b [32]byte
	n := 0
	group := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == sep:
			if i != first && group != 3 {
				return "", false
			}
			group = 0
		case c >= '0' && c <= '9':
			if n == len(b) {
				return "", false
			}
			b[n] = c
			n++
			group++
		default:
			return "", false
		}
	}
	if group != 3 {
		return "", false
	}
	return string(b[:n]), true
}

// floatAmount reads a number in Go float syntax (what Excel stores) and accepts it when it
// is whole to within float noise.
func floatAmount(s string) (int64, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return 0, ErrNotNumber
	}
	if f > float64(MaxAmount) {
		return 0, ErrTooLarge
	}
	r := math.Round(f)
	if math.Abs(f-r) > 1e-6 {
		return 0, ErrFraction
	}
	return int64(r), nil
}

// ParseDate reads a calendar day the way it reaches us: an Excel date cell (a serial
// number; date1904 for workbooks on the 1904 system), 2026-12-10, 10/12/2026 (day first,
// as Indonesia writes it; also with - or .), 10 Des 2026 or 10-Dec-2026 (month names in
// Indonesian or English, short or full). A time of day is ignored. The result is the day
// at UTC midnight, as the billing service wants it.
func ParseDate(s string, date1904 bool) (time.Time, error) {
	s = trimSpace(s)
	if s == "" {
		return time.Time{}, ErrNotDate
	}
	if isSerial(s) {
		return serialDate(s, date1904)
	}
	// Drop a leading weekday ("Kamis, 10 Des 2026").
	if i := strings.IndexByte(s, ','); i > 0 && i < 10 && !hasDigit(s[:i]) {
		s = trimSpace(s[i+1:])
	}
	// Drop a time of day: "2026-12-10T08:00:00Z", "10/12/2026 08:00", "10 Des 2026 08.00".
	if i := strings.IndexByte(s, 'T'); i == 10 && s[4] == '-' {
		s = s[:i]
	}
	if i := strings.IndexByte(s, ':'); i > 0 {
		if j := strings.LastIndexByte(s[:i], ' '); j > 0 {
			s = trimSpace(s[:j])
		}
	}
	if j := strings.LastIndexByte(s, ' '); j > 0 && isClock(s[j+1:]) {
		s = trimSpace(s[:j]) // "10 Des 2026 08.00"
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
	n, ok := digitsOnly(whole)
	if !ok || n > 2_958_465 { // 9999-12-31
		return time.Time{}, ErrNotDate
	}
	epoch := excelEpoch1900
	if date1904 {
		epoch = excelEpoch1904
	}
	t := epoch.AddDate(0, 0, int(n))
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
	if len(s) == 0 || len(s) > maxLen {
		return 0, false
	}
	v, ok := digitsOnly(s)
	return int(v), ok
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

// trimSpace trims ASCII space and the no-break spaces spreadsheets insert around numbers.
func trimSpace(s string) string {
	for len(s) > 0 {
		if c := s[0]; c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			s = s[1:]
			continue
		}
		r, n := utf8.DecodeRuneInString(s)
		if r == '\u00a0' || r == '\u202f' || r == '\u2007' {
			s = s[n:]
			continue
		}
		break
	}
	for len(s) > 0 {
		if c := s[len(s)-1]; c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			s = s[:len(s)-1]
			continue
		}
		r, n := utf8.DecodeLastRuneInString(s)
		if r == '\u00a0' || r == '\u202f' || r == '\u2007' {
			s = s[:len(s)-n]
			continue
		}
		break
	}
	if strings.ContainsAny(s, "\u00a0\u202f\u2007") {
		// Inside the number ("1 250 000" with no-break spaces) they group like spaces.
		s = strings.NewReplacer("\u00a0", " ", "\u202f", " ", "\u2007", " ").Replace(s)
	}
	return s
}
