package i18n

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// CompareNatural orders texts the way people read them: numbers by their value, letters
// without regard to case. Classes sort "Kelas 7A", "Kelas 7B", "Kelas 9C", "Kelas 10A"
// (not "10A" before "7A"), and the Roman grades of Indonesian schools as numbers too:
// "IX A", "X IPA 1", "XI IPA 1", "XII IPS 2" (a word of upper-case I, V and X alone, worth
// 1 to 39). Texts equal by these rules are ordered bytewise, so the order is total. It is
// the one order of classes everywhere in the portal.
func CompareNatural(a, b string) int {
	x, y := a, b
	for x != "" && y != "" {
		vx, nx, okx := numberAt(x, a, len(a)-len(x))
		vy, ny, oky := numberAt(y, b, len(b)-len(y))
		switch {
		case okx && oky:
			if c := cmp.Compare(vx, vy); c != 0 {
				return c
			}
			x, y = x[nx:], y[ny:]
			continue
		case okx:
			return -1 // a number sorts before a letter at the same place
		case oky:
			return 1
		}
		rx, sx := utf8.DecodeRuneInString(x)
		ry, sy := utf8.DecodeRuneInString(y)
		if c := cmp.Compare(unicode.ToLower(rx), unicode.ToLower(ry)); c != 0 {
			return c
		}
		x, y = x[sx:], y[sy:]
	}
	switch {
	case x == "" && y != "":
		return -1
	case x != "" && y == "":
		return 1
	}
	return strings.Compare(a, b)
}

// SortNatural sorts ss in place by CompareNatural.
func SortNatural(ss []string) { slices.SortFunc(ss, CompareNatural) }

// numberAt reads a number at the start of rest (which starts at byte i of whole): a run
// of digits, or a Roman numeral standing alone as a word. n is its length in bytes.
func numberAt(rest, whole string, i int) (v uint64, n int, ok bool) {
	for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
		if v < 1e17 {
			v = v*10 + uint64(rest[n]-'0')
		}
		n++
	}
	if n > 0 {
		return v, n, true
	}
	if i > 0 && isLetter(whole[:i], true) {
		return 0, 0, false // inside a word
	}
	for n < len(rest) && (rest[n] == 'I' || rest[n] == 'V' || rest[n] == 'X') {
		n++
	}
	if n == 0 || n < len(rest) && isLetter(rest[n:], false) {
		return 0, 0, false
	}
	r, ok := roman(rest[:n])
	return uint64(r), n, ok
}

// isLetter reports whether the rune at the end (last) or start of s is a letter.
func isLetter(s string, last bool) bool {
	var r rune
	if last {
		r, _ = utf8.DecodeLastRuneInString(s)
	} else {
		r, _ = utf8.DecodeRuneInString(s)
	}
	return unicode.IsLetter(r)
}

// roman reads I to XXXIX, written the standard way.
func roman(s string) (int, bool) {
	vals := map[byte]int{'I': 1, 'V': 5, 'X': 10}
	total := 0
	for i := 0; i < len(s); i++ {
		v := vals[s[i]]
		if i+1 < len(s) && vals[s[i+1]] > v {
			total -= v
		} else {
			total += v
		}
	}
	if total < 1 || total > 39 || toRoman(total) != s {
		return 0, false
	}
	return total, true
}

func toRoman(n int) string {
	var b strings.Builder
	for ; n >= 10; n -= 10 {
		b.WriteByte('X')
	}
	b.WriteString([]string{"", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX"}[n])
	return b.String()
}
