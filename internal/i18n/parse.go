package i18n

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Why a text is not an amount of rupiah; callers turn them into their own messages.
var (
	// ErrNotNumber: the text is not a number in any form people type.
	ErrNotNumber = errors.New("i18n: not a number")
	// ErrFraction: a number with a non-zero fraction, which rupiah do not have.
	ErrFraction = errors.New("i18n: not whole rupiah")
	// ErrTooLarge: more than MaxRupiah.
	ErrTooLarge = errors.New("i18n: amount too large")
)

// MaxRupiah bounds amounts so a stray digit cannot ask a parent for trillions; it is far
// above any school fee and well inside int64 (a whole school's totals cannot overflow).
const MaxRupiah int64 = 999_999_999_999

// ParseRupiah reads whole rupiah the way Indonesian finance staff type them: 1250000,
// 1.250.000, Rp 1.250.000, Rp1.250.000,-, 1.250.000,00, 1 250 000, IDR 1,250,000. A
// negative amount ("-5.000", "Rp -5.000", "(5.000)") is returned as such; whether it is
// allowed is the caller's business. Exponents ("12e5") are refused: in a typed amount
// they are a slip of the finger, not a way anyone writes money.
func ParseRupiah(s string) (int64, error) { return parseRupiah(s, false) }

// ParseRupiahCell is ParseRupiah for spreadsheet cells: it also reads the raw numbers a
// spreadsheet stores (1.25E+6, 1250000.0000000002, the float noise of a formula).
func ParseRupiahCell(s string) (int64, error) { return parseRupiah(s, true) }

func parseRupiah(s string, stored bool) (int64, error) {
	s = TrimSpace(s)
	brackets := false
	if strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") { // accounting negative
		brackets, s = true, TrimSpace(s[1:len(s)-1])
	}
	// One sign at most, before or after the currency: "-Rp 5.000", "Rp -5.000".
	s, minus, signed := stripSign(s)
	if t := stripCurrency(s); t != s {
		s = t
		if !signed {
			s, minus, signed = stripSign(s)
		}
	}
	if brackets && signed { // "(-5.000)": not a double negative, a typo
		return 0, ErrNotNumber
	}
	s = TrimSpace(strings.TrimSuffix(strings.TrimSuffix(s, ",-"), ".-"))
	if s == "" {
		return 0, ErrNotNumber
	}
	v, err := parseUnsigned(s, stored)
	if err != nil {
		return 0, err
	}
	if brackets || minus {
		v = -v
	}
	return v, nil
}

// stripSign removes one leading sign; minus reports a negative one, signed any.
func stripSign(s string) (rest string, minus, signed bool) {
	switch {
	case strings.HasPrefix(s, "-"):
		return TrimSpace(s[1:]), true, true
	case strings.HasPrefix(s, "−"): // U+2212, what some keyboards and Word insert
		return TrimSpace(s[len("−"):]), true, true
	case strings.HasPrefix(s, "+"):
		return TrimSpace(s[1:]), false, true
	}
	return s, false, false
}

// stripCurrency removes a leading "Rp", "Rp." or "IDR" and a trailing "IDR" or "rupiah".
func stripCurrency(s string) string {
	if len(s) >= 2 && (s[0] == 'R' || s[0] == 'r') && (s[1] == 'p' || s[1] == 'P') {
		s = TrimSpace(strings.TrimPrefix(s[2:], "."))
	} else if len(s) >= 3 && strings.EqualFold(s[:3], "IDR") {
		s = TrimSpace(s[3:])
	}
	for _, suffix := range []string{"IDR", "rupiah"} {
		if len(s) > len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix) {
			s = TrimSpace(s[:len(s)-len(suffix)])
		}
	}
	return s
}

func parseUnsigned(s string, stored bool) (int64, error) {
	// The common cases first, without any allocation: plain digits.
	if v, ok := digitsOnly(s); ok {
		return v, checkRupiah(v)
	}
	if strings.ContainsAny(s, "eE") {
		if !stored {
			return 0, ErrNotNumber
		}
		return floatRupiah(s)
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
			if stored && sep == '.' && spaces == 0 {
				// A raw number such as 1250000.0000000002: a float artefact of a formula,
				// not a typed fraction.
				if v, err := floatRupiah(s); err == nil {
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
	return v, checkRupiah(v)
}

func checkRupiah(v int64) error {
	if v > MaxRupiah {
		return ErrTooLarge
	}
	return nil
}

// digitsOnly parses a non-empty run of ASCII digits; more than 18 digits (which might not
// fit an int64) is not read.
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

// floatRupiah reads a number in Go float syntax (what spreadsheets store) and accepts it
// when it is whole to within float noise.
func floatRupiah(s string) (int64, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return 0, ErrNotNumber
	}
	if f > float64(MaxRupiah) {
		return 0, ErrTooLarge
	}
	r := math.Round(f)
	if math.Abs(f-r) > 1e-6 {
		return 0, ErrFraction
	}
	return int64(r), nil
}

// TrimSpace trims ASCII space and the no-break spaces spreadsheets and locale formatting
// put around numbers; inside the text ("1 250 000" grouped with no-break spaces) they
// become plain spaces, so they group like the spaces people type.
func TrimSpace(s string) string {
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
		s = strings.NewReplacer("\u00a0", " ", "\u202f", " ", "\u2007", " ").Replace(s)
	}
	return s
}

// ErrNotDay means a text is not a calendar day in any form people write one.
var ErrNotDay = errors.New("i18n: not a calendar day")

// ParseDay reads a calendar day the way it is written here: 2026-12-10 (what a date input
// sends), 10/12/2026 (day first, as Indonesia writes it; also with - or ., and 10/12/26
// for 2026), 10 Des 2026, 10-Dec-2026 or Dec 10, 2026 (month names in Indonesian or
// English, short or full). A weekday before it ("Kamis, ") or a time of day after it is
// ignored. The result is the day at UTC midnight, the form the billing service wants;
// which years make sense is the caller's business.
func ParseDay(s string) (time.Time, error) {
	s = TrimSpace(s)
	// Drop a leading weekday ("Kamis, 10 Des 2026").
	if i := strings.IndexByte(s, ','); i > 0 && i < 10 && !strings.ContainsAny(s[:i], "0123456789") {
		s = TrimSpace(s[i+1:])
	}
	// Drop a time of day: "2026-12-10T08:00:00Z", "10/12/2026 08:00", "10 Des 2026 08.00".
	if i := strings.IndexByte(s, 'T'); i == 10 && s[4] == '-' {
		s = s[:i]
	}
	if i := strings.IndexByte(s, ':'); i > 0 {
		if j := strings.LastIndexByte(s[:i], ' '); j > 0 {
			s = TrimSpace(s[:j])
		}
	}
	if j := strings.LastIndexByte(s, ' '); j > 0 && isClock(s[j+1:]) {
		s = TrimSpace(s[:j]) // "10 Des 2026 08.00"
	}
	y, m, d, ok := splitDate(s)
	if !ok || m < 1 || m > 12 || d < 1 || d > 31 {
		return time.Time{}, ErrNotDay
	}
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if t.Day() != d { // 31/11, 29/02/2027
		return time.Time{}, ErrNotDay
	}
	return t, nil
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

// splitDate reads year, month and day from the text forms.
func splitDate(s string) (y, m, d int, ok bool) {
	parts, n := dateFields(s)
	if n != 3 {
		return 0, 0, 0, false
	}
	a, b, c := parts[0], parts[1], parts[2]
	if mon, isName := ParseMonthShort(b); isName {
		// 10 Des 2026
		d, ok1 := smallInt(a, 2)
		y, ok2 := year(c)
		return y, int(mon), d, ok1 && ok2
	}
	if mon, isName := ParseMonthShort(a); isName {
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

// dateFields splits on the date separators (space, /, -, ., comma) without allocating;
// more than three parts is reported as four.
func dateFields(s string) ([3]string, int) {
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

// smallInt reads a run of at most maxLen digits.
func smallInt(s string, maxLen int) (int, bool) {
	if len(s) > maxLen {
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
