package sheets

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// builtinFormats are the number formats Excel knows by id without writing their code
// (ECMA-376 18.8.30; ids 5–8 and 41–44 as Excel writes them in English, the East Asian
// ids 27–36 and 50–58 reduced to a date or a time so their cells read as such).
var builtinFormats = map[int]string{
	0: "General", 1: "0", 2: "0.00", 3: "#,##0", 4: "#,##0.00",
	5: `"$"#,##0_);\("$"#,##0\)`, 6: `"$"#,##0_);[Red]\("$"#,##0\)`,
	7: `"$"#,##0.00_);\("$"#,##0.00\)`, 8: `"$"#,##0.00_);[Red]\("$"#,##0.00\)`,
	9: "0%", 10: "0.00%", 11: "0.00E+00", 12: "# ?/?", 13: "# ??/??",
	14: "mm-dd-yy", 15: "d-mmm-yy", 16: "d-mmm", 17: "mmm-yy", 18: "h:mm AM/PM",
	19: "h:mm:ss AM/PM", 20: "h:mm", 21: "h:mm:ss", 22: "m/d/yy h:mm",
	27: "yyyy/mm/dd", 28: "yyyy/mm/dd", 29: "yyyy/mm/dd", 30: "mm-dd-yy", 31: "yyyy/mm/dd",
	32: "h:mm:ss", 33: "h:mm:ss", 34: "h:mm:ss", 35: "h:mm:ss", 36: "yyyy/mm/dd",
	37: "#,##0 ;(#,##0)", 38: "#,##0 ;[Red](#,##0)", 39: "#,##0.00;(#,##0.00)",
	40: "#,##0.00;[Red](#,##0.00)",
	41: `_(* #,##0_);_(* \(#,##0\);_(* "-"_);_(@_)`,
	42: `_("$"* #,##0_);_("$"* \(#,##0\);_("$"* "-"_);_(@_)`,
	43: `_(* #,##0.00_);_(* \(#,##0.00\);_(* "-"??_);_(@_)`,
	44: `_("$"* #,##0.00_);_("$"* \(#,##0.00\);_("$"* "-"??_);_(@_)`,
	45: "mm:ss", 46: "[h]:mm:ss", 47: "mm:ss.0", 48: "##0.0E+0", 49: "@",
	50: "yyyy/mm/dd", 51: "yyyy/mm/dd", 52: "yyyy/mm/dd", 53: "yyyy/mm/dd", 54: "yyyy/mm/dd",
	55: "yyyy/mm/dd", 56: "yyyy/mm/dd", 57: "yyyy/mm/dd", 58: "yyyy/mm/dd",
}

// builtinFormat is the code of a built-in id, "General" for an unknown one.
func builtinFormat(id int) string {
	if c, ok := builtinFormats[id]; ok {
		return c
	}
	return "General"
}

type tokKind uint8

const (
	tLit tokKind = iota
	tDigit
	tPoint
	tComma
	tPercent
	tExp
	tText
	tGeneral
	tSlash
	tYear
	tMonth
	tDay
	tHour
	tMinute
	tSecond
	tFracSec
	tAMPM
	tElapsedH
	tElapsedM
	tElapsedS
)

type fmtToken struct {
	kind tokKind
	n    int    // letters (d: 1–4, m: 1–5, y: 2 or 4, digits of a fraction of seconds)
	ch   byte   // a digit placeholder ('0', '#', '?'); '+' or '-' after E
	lit  string // a literal, or the AM/PM text as written
}

type fmtCond struct {
	op  string
	val float64
}

type fmtSection struct {
	tokens   []fmtToken
	cond     *fmtCond
	date     bool // has date or time tokens
	dateKind Kind // KindDate or KindTime
	text     bool // has '@'
	indo     bool // [$-421]: Indonesian month and day names
	hour12   bool
}

// numFormat is a parsed number format code.
type numFormat struct {
	code     string
	sections []fmtSection
	kind     Kind // KindNumber, KindDate or KindTime: what a number in it is
	textOnly bool // "@": numbers show as General, text as it is
}

// parseNumFormat parses a format code; it never fails (what it cannot read shows as
// literal text, as a spreadsheet would).
func parseNumFormat(code string) *numFormat {
	nf := &numFormat{code: code, kind: KindNumber}
	for _, s := range splitSections(code) {
		nf.sections = append(nf.sections, parseSection(s))
	}
	if len(nf.sections) == 0 {
		nf.sections = []fmtSection{{tokens: []fmtToken{{kind: tGeneral}}}}
	}
	if first := nf.sections[0]; first.date {
		nf.kind = first.dateKind
	}
	nf.textOnly = len(nf.sections) == 1 && nf.sections[0].text && !nf.sections[0].date && !hasDigits(nf.sections[0])
	return nf
}

func hasDigits(s fmtSection) bool {
	for _, t := range s.tokens {
		if t.kind == tDigit || t.kind == tGeneral {
			return true
		}
	}
	return false
}

// splitSections splits a code at the ';' outside quotes, escapes and brackets.
func splitSections(code string) []string {
	var out []string
	start, inQ, inB := 0, false, false
	for i := 0; i < len(code); i++ {
		c := code[i]
		switch {
		case inQ:
			if c == '"' {
				inQ = false
			}
		case inB:
			if c == ']' {
				inB = false
			}
		case c == '"':
			inQ = true
		case c == '[':
			inB = true
		case c == '\\' || c == '_' || c == '*':
			i++
		case c == ';':
			out = append(out, code[start:i])
			start = i + 1
		}
	}
	return append(out, code[start:])
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 32
	}
	return c
}

func parseSection(s string) fmtSection {
	var sec fmtSection
	add := func(t fmtToken) {
		if t.kind == tLit && len(sec.tokens) > 0 && sec.tokens[len(sec.tokens)-1].kind == tLit {
			sec.tokens[len(sec.tokens)-1].lit += t.lit
			return
		}
		sec.tokens = append(sec.tokens, t)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		lc := lower(c)
		switch {
		case c == '"':
			j := strings.IndexByte(s[i+1:], '"')
			if j < 0 {
				add(fmtToken{kind: tLit, lit: s[i+1:]})
				i = len(s)
				continue
			}
			add(fmtToken{kind: tLit, lit: s[i+1 : i+1+j]})
			i += j + 1
		case c == '\\':
			if i+1 < len(s) {
				add(fmtToken{kind: tLit, lit: s[i+1 : i+2]})
				i++
			}
		case c == '_':
			add(fmtToken{kind: tLit, lit: " "})
			i++
		case c == '*':
			i++ // a fill: the column's width, not the value
		case c == '[':
			j := strings.IndexByte(s[i:], ']')
			if j < 0 {
				i = len(s)
				continue
			}
			sec.bracket(s[i+1:i+j], add)
			i += j
		case c == '0' || c == '#' || c == '?':
			add(fmtToken{kind: tDigit, ch: c})
		case c == '.':
			if n := len(sec.tokens); n > 0 && sec.tokens[n-1].kind == tSecond && i+1 < len(s) && s[i+1] == '0' {
				k := 0
				for i+1 < len(s) && s[i+1] == '0' {
					k++
					i++
				}
				add(fmtToken{kind: tFracSec, n: k})
				continue
			}
			add(fmtToken{kind: tPoint})
		case c == ',':
			add(fmtToken{kind: tComma})
		case c == '%':
			add(fmtToken{kind: tPercent})
		case c == '@':
			sec.text = true
			add(fmtToken{kind: tText})
		case c == '/':
			add(fmtToken{kind: tSlash})
		case (c == 'E' || c == 'e') && i+1 < len(s) && (s[i+1] == '+' || s[i+1] == '-'):
			add(fmtToken{kind: tExp, ch: s[i+1]})
			i++
		case lc == 'g' && strings.EqualFold(safeSlice(s, i, 7), "general"):
			add(fmtToken{kind: tGeneral})
			i += 6
		case lc == 's' && strings.EqualFold(safeSlice(s, i, 8), "standard"):
			add(fmtToken{kind: tGeneral})
			i += 7
		case lc == 'a' && strings.EqualFold(safeSlice(s, i, 5), "am/pm"):
			add(fmtToken{kind: tAMPM, lit: s[i : i+5]})
			sec.hour12 = true
			i += 4
		case lc == 'a' && strings.EqualFold(safeSlice(s, i, 3), "a/p"):
			add(fmtToken{kind: tAMPM, lit: s[i : i+3]})
			sec.hour12 = true
			i += 2
		case lc == 'y' || lc == 'm' || lc == 'd' || lc == 'h' || lc == 's' || lc == 'e':
			n := 1
			for i+1 < len(s) && lower(s[i+1]) == lc {
				n++
				i++
			}
			switch lc {
			case 'y', 'e':
				add(fmtToken{kind: tYear, n: map[bool]int{true: 2, false: 4}[lc == 'y' && n <= 2]})
			case 'm':
				add(fmtToken{kind: tMonth, n: min(n, 5)})
			case 'd':
				add(fmtToken{kind: tDay, n: min(n, 4)})
			case 'h':
				add(fmtToken{kind: tHour, n: min(n, 2)})
			case 's':
				add(fmtToken{kind: tSecond, n: min(n, 2)})
			}
		default:
			add(fmtToken{kind: tLit, lit: s[i : i+1]})
		}
	}
	sec.resolveMinutes()
	return sec
}

func safeSlice(s string, i, n int) string {
	if i+n > len(s) {
		return s[i:]
	}
	return s[i : i+n]
}

// bracket reads what is between [ and ]: elapsed time, a currency and locale, a
// condition; colours and the rest show nothing.
func (sec *fmtSection) bracket(b string, add func(fmtToken)) {
	if b == "" {
		return
	}
	allOf := func(c byte) bool {
		for i := 0; i < len(b); i++ {
			if lower(b[i]) != c {
				return false
			}
		}
		return true
	}
	switch {
	case allOf('h'):
		add(fmtToken{kind: tElapsedH, n: len(b)})
	case allOf('m'):
		add(fmtToken{kind: tElapsedM, n: len(b)})
	case allOf('s'):
		add(fmtToken{kind: tElapsedS, n: len(b)})
	case b[0] == '$':
		cur, loc, _ := strings.Cut(b[1:], "-")
		if cur != "" {
			add(fmtToken{kind: tLit, lit: cur})
		}
		loc = strings.ToLower(loc)
		switch {
		case strings.HasSuffix(loc, "421"), strings.HasPrefix(loc, "id"), strings.HasPrefix(loc, "in"):
			sec.indo = true
		case loc == "f800": // the system's long date
			for _, t := range parseSection("dddd, mmmm dd, yyyy").tokens {
				add(t)
			}
		case loc == "f400": // the system's time
			for _, t := range parseSection("h:mm:ss AM/PM").tokens {
				add(t)
			}
			sec.hour12 = true
		}
	case b[0] == '<' || b[0] == '>' || b[0] == '=':
		op := b[:1]
		rest := b[1:]
		if rest != "" && (rest[0] == '=' || rest[0] == '>') {
			op += rest[:1]
			rest = rest[1:]
		}
		if v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64); err == nil {
			sec.cond = &fmtCond{op: op, val: v}
		}
	}
}

// resolveMinutes turns an m after an hour, or before a second, into minutes, and says
// whether the section is a date or a time.
func (sec *fmtSection) resolveMinutes() {
	prev := -1
	for i := range sec.tokens {
		switch sec.tokens[i].kind {
		case tYear, tMonth, tDay, tHour, tSecond, tElapsedH, tElapsedM, tElapsedS, tAMPM:
		default:
			continue
		}
		if sec.tokens[i].kind == tMonth && sec.tokens[i].n <= 2 && prev >= 0 {
			if k := sec.tokens[prev].kind; k == tHour || k == tElapsedH {
				sec.tokens[i].kind = tMinute
			}
		}
		if sec.tokens[i].kind == tSecond && prev >= 0 && sec.tokens[prev].kind == tMonth && sec.tokens[prev].n <= 2 {
			sec.tokens[prev].kind = tMinute
		}
		prev = i
	}
	sec.dateKind = KindTime
	for _, t := range sec.tokens {
		switch t.kind {
		case tYear, tMonth, tDay:
			sec.date, sec.dateKind = true, KindDate
		case tHour, tMinute, tSecond, tElapsedH, tElapsedM, tElapsedS, tAMPM, tFracSec:
			sec.date = true
		}
	}
}

// section picks the section a number shows in, and whether a minus sign is to be written
// by the format (false when the section itself is for negatives).
func (nf *numFormat) section(v float64) (*fmtSection, bool) {
	secs := nf.sections
	if len(secs) > 1 && secs[len(secs)-1].text && !hasDigits(secs[len(secs)-1]) && !secs[len(secs)-1].date {
		secs = secs[:len(secs)-1] // the text section
	}
	if secs[0].cond != nil || (len(secs) > 1 && secs[1].cond != nil) {
		for i := range secs {
			if c := secs[i].cond; c != nil && c.holds(v) {
				return &secs[i], false
			}
		}
		for i := range secs {
			if secs[i].cond == nil {
				return &secs[i], v < 0
			}
		}
		return &secs[len(secs)-1], v < 0
	}
	switch {
	case len(secs) >= 3 && v == 0:
		return &secs[2], false
	case len(secs) >= 2 && v < 0:
		return &secs[1], false
	}
	return &secs[0], v < 0
}

func (c *fmtCond) holds(v float64) bool {
	switch c.op {
	case "<":
		return v < c.val
	case "<=":
		return v <= c.val
	case ">":
		return v > c.val
	case ">=":
		return v >= c.val
	case "=":
		return v == c.val
	case "<>":
		return v != c.val
	}
	return false
}

// formatText shows a text cell through the format's text section, if it has one.
func (nf *numFormat) formatText(s string) string {
	var sec *fmtSection
	switch {
	case len(nf.sections) == 4:
		sec = &nf.sections[3]
	case nf.sections[len(nf.sections)-1].text:
		sec = &nf.sections[len(nf.sections)-1]
	default:
		return s
	}
	var b strings.Builder
	for _, t := range sec.tokens {
		switch t.kind {
		case tText:
			b.WriteString(s)
		case tLit:
			b.WriteString(t.lit)
		}
	}
	return strings.TrimSpace(b.String())
}

// formatNumber shows a number (or a date's serial) through the format. date1904 picks
// the date system.
func (nf *numFormat) formatNumber(v float64, date1904 bool) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "#NUM!"
	}
	if nf.textOnly {
		return formatGeneral(v)
	}
	sec, minus := nf.section(v)
	if sec.date {
		if v < 0 {
			return "########"
		}
		s, ok := sec.formatDate(v, date1904)
		if !ok {
			return "########"
		}
		return s
	}
	a := math.Abs(v)
	s := sec.formatNumeric(a)
	if minus && strings.ContainsAny(s, "123456789") {
		s = "-" + s
	}
	return s
}

// formatGeneral shows a number as the General format does: every digit of an integer
// below 10^15, 15 significant digits otherwise (scientific beyond).
func formatGeneral(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	a := math.Abs(v)
	if a != 0 && (a < 1e-9 || a >= 1e15) {
		s := strconv.FormatFloat(v, 'E', 5, 64)
		mant, exp, _ := strings.Cut(s, "E")
		if strings.Contains(mant, ".") {
			mant = strings.TrimRight(strings.TrimRight(mant, "0"), ".")
		}
		sign := exp[:1]
		digits := strings.TrimLeft(exp[1:], "0")
		for len(digits) < 2 {
			digits = "0" + digits
		}
		return mant + "E" + sign + digits
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 15, 64), 64)
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// roundDecimal is v ≥ 0 rounded half away from zero to frac digits after the point, as
// digit strings (int without leading zeros, "" for zero; frac exactly frac digits).
// Like a spreadsheet it rounds the value's 15 significant digits, not its binary
// expansion (2.675 shows 2.68).
func roundDecimal(v float64, frac int) (string, string) {
	if v == 0 {
		return "", strings.Repeat("0", frac)
	}
	e := strconv.FormatFloat(v, 'e', 14, 64) // d.dddddddddddddde±XX
	mant, expS, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expS)
	digits := []byte(strings.Replace(mant, ".", "", 1)) // 15 digits, value 0.digits × 10^(exp+1)
	point := exp + 1                                    // digits before the point
	keep := point + frac
	switch {
	case keep < 0:
		return "", strings.Repeat("0", frac)
	case keep < len(digits):
		up := digits[keep] >= '5'
		digits = digits[:keep]
		if up {
			i := keep - 1
			for ; i >= 0; i-- {
				if digits[i] == '9' {
					digits[i] = '0'
					continue
				}
				digits[i]++
				break
			}
			if i < 0 {
				digits = append([]byte{'1'}, digits...)
				point++
			}
		}
	default:
		for len(digits) < keep {
			digits = append(digits, '0')
		}
	}
	var ip, fp string
	switch {
	case point <= 0:
		fp = strings.Repeat("0", -point) + string(digits)
	case point >= len(digits):
		ip = string(digits) + strings.Repeat("0", point-len(digits))
	default:
		ip, fp = string(digits[:point]), string(digits[point:])
	}
	if len(fp) > frac {
		fp = fp[:frac]
	}
	for len(fp) < frac {
		fp += "0"
	}
	ip = strings.TrimLeft(ip, "0")
	return ip, fp
}

// formatNumeric shows a ≥ 0 through a numeric section.
func (sec *fmtSection) formatNumeric(a float64) string {
	toks := sec.tokens
	if hasGeneral(toks) {
		var b strings.Builder
		for _, t := range toks {
			if t.kind == tGeneral {
				b.WriteString(formatGeneral(a))
				continue
			}
			writeLiteral(&b, t)
		}
		return strings.TrimSpace(b.String())
	}
	// Where the parts are: the integer digits, the point, the fraction, the exponent.
	point, exp, slash := -1, -1, -1
	for i, t := range toks {
		switch {
		case t.kind == tPoint && point < 0 && exp < 0:
			point = i
		case t.kind == tExp && exp < 0:
			exp = i
		case t.kind == tSlash && slash < 0:
			slash = i
		case t.kind == tPercent:
			a *= 100
		}
	}
	if slash >= 0 && point < 0 && exp < 0 && hasDigitBefore(toks, slash) {
		return sec.formatFraction(a, slash)
	}
	numEnd := len(toks)
	if exp >= 0 {
		numEnd = exp
	}
	intEnd := numEnd
	if point >= 0 {
		intEnd = point
	}
	// Commas: between integer placeholders they group; right after the last placeholder of
	// the number they divide by 1,000 each.
	lastDigit := -1
	for i := 0; i < numEnd; i++ {
		if toks[i].kind == tDigit {
			lastDigit = i
		}
	}
	group := false
	firstInt := -1
	for i := 0; i < intEnd; i++ {
		if toks[i].kind == tDigit {
			if firstInt < 0 {
				firstInt = i
			}
		}
	}
	scale := 0
	for i := 0; i < numEnd; i++ {
		if toks[i].kind != tComma {
			continue
		}
		switch {
		case i > firstInt && firstInt >= 0 && i < intEnd && digitAfter(toks, i, intEnd):
			group = true
		case i > lastDigit && lastDigit >= 0 && allCommasBetween(toks, lastDigit, i):
			scale++
		}
	}
	for ; scale > 0; scale-- {
		a /= 1000
	}
	fracDigits := 0
	if point >= 0 {
		for i := point + 1; i < numEnd; i++ {
			if toks[i].kind == tDigit {
				fracDigits++
			}
		}
	}
	expVal := 0
	if exp >= 0 {
		intPH := 0
		hash := false
		for i := 0; i < intEnd; i++ {
			if toks[i].kind == tDigit {
				intPH++
				hash = hash || toks[i].ch == '#'
			}
		}
		if a != 0 {
			expVal = int(math.Floor(math.Log10(a)))
			if intPH > 1 && hash {
				// Engineering: the exponent a multiple of the integer placeholders.
				expVal = int(math.Floor(float64(expVal)/float64(intPH))) * intPH
			} else if intPH > 1 {
				expVal -= intPH - 1
			}
			a /= math.Pow(10, float64(expVal))
			ip, _ := roundDecimal(a, fracDigits)
			if len(ip) > max(intPH, 1) && !(intPH > 1 && hash) {
				expVal++
				a /= 10
			}
		}
	}
	ip, fp := roundDecimal(a, fracDigits)
	var b strings.Builder
	sec.writeInt(&b, toks[:intEnd], ip, group)
	if point >= 0 {
		sec.writeFrac(&b, toks[point:numEnd], fp)
	}
	if exp >= 0 {
		t := toks[exp]
		b.WriteByte('E')
		switch {
		case expVal < 0:
			b.WriteByte('-')
		case t.ch == '+':
			b.WriteByte('+')
		}
		ed := 0
		for i := exp + 1; i < len(toks) && toks[i].kind == tDigit; i++ {
			ed++
		}
		es := strconv.Itoa(abs(expVal))
		for len(es) < ed {
			es = "0" + es
		}
		b.WriteString(es)
		for i := exp + 1; i < len(toks); i++ {
			if toks[i].kind != tDigit {
				writeLiteral(&b, toks[i])
			}
		}
	}
	return strings.TrimSpace(b.String())
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func hasDigitBefore(toks []fmtToken, i int) bool {
	for j := 0; j < i; j++ {
		if toks[j].kind == tDigit {
			return true
		}
	}
	return false
}

func digitAfter(toks []fmtToken, i, end int) bool {
	for j := i + 1; j < end; j++ {
		if toks[j].kind == tDigit {
			return true
		}
	}
	return false
}

func allCommasBetween(toks []fmtToken, from, to int) bool {
	for j := from + 1; j < to; j++ {
		if toks[j].kind != tComma {
			return false
		}
	}
	return true
}

// writeLiteral writes what a token shows outside the digits.
func writeLiteral(b *strings.Builder, t fmtToken) {
	switch t.kind {
	case tLit:
		b.WriteString(t.lit)
	case tPercent:
		b.WriteByte('%')
	case tSlash:
		b.WriteByte('/')
	case tGeneral, tText:
	}
}

// writeInt fills the integer placeholders with the digits ip: the first placeholder takes
// every digit the others have no room for.
func (sec *fmtSection) writeInt(b *strings.Builder, toks []fmtToken, ip string, group bool) {
	ph := 0
	for _, t := range toks {
		if t.kind == tDigit {
			ph++
		}
	}
	if ph == 0 {
		for _, t := range toks {
			writeLiteral(b, t)
		}
		return
	}
	// The digit each placeholder shows, right-aligned.
	shown := make([]string, ph)
	d := len(ip)
	for k := ph - 1; k >= 0; k-- {
		var s string
		switch {
		case d > 0 && k == 0:
			s = ip[:d]
			d = 0
		case d > 0:
			s = ip[d-1 : d]
			d--
		}
		if s == "" {
			switch toks[placeholderIndex(toks, k)].ch {
			case '0':
				s = "0"
			case '?':
				s = " "
			}
		}
		shown[k] = s
	}
	if group {
		digits := strings.Join(shown, "")
		lead := strings.TrimLeft(digits, " ")
		pad := digits[:len(digits)-len(lead)]
		grouped := groupThousands(lead)
		k := 0
		for _, t := range toks {
			switch {
			case t.kind == tDigit:
				if k == 0 {
					b.WriteString(pad + grouped)
				}
				k++
			case t.kind == tComma:
			default:
				writeLiteral(b, t)
			}
		}
		return
	}
	k := 0
	for _, t := range toks {
		switch t.kind {
		case tDigit:
			b.WriteString(shown[k])
			k++
		case tComma:
		default:
			writeLiteral(b, t)
		}
	}
}

func hasGeneral(toks []fmtToken) bool {
	for _, t := range toks {
		if t.kind == tGeneral {
			return true
		}
	}
	return false
}

func placeholderIndex(toks []fmtToken, k int) int {
	n := 0
	for i, t := range toks {
		if t.kind == tDigit {
			if n == k {
				return i
			}
			n++
		}
	}
	return 0
}

func groupThousands(s string) string {
	if len(s) <= 3 {
		return s
	}
	var b strings.Builder
	first := len(s) % 3
	if first > 0 {
		b.WriteString(s[:first])
	}
	for i := first; i < len(s); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s[i : i+3])
	}
	return b.String()
}

// writeFrac writes the point and the fraction's placeholders (toks starts at the point):
// trailing zeros vanish under '#' and become spaces under '?'.
func (sec *fmtSection) writeFrac(b *strings.Builder, toks []fmtToken, fp string) {
	var chars []string
	k := 0
	for _, t := range toks[1:] {
		if t.kind == tDigit {
			chars = append(chars, fp[k:k+1])
			k++
		}
	}
	k = 0
	// Trailing zeros, from the right.
	idx := len(chars) - 1
	for i := len(toks) - 1; i > 0 && idx >= 0; i-- {
		t := toks[i]
		if t.kind != tDigit {
			continue
		}
		if chars[idx] != "0" || t.ch == '0' {
			break
		}
		if t.ch == '#' {
			chars[idx] = ""
		} else {
			chars[idx] = " "
		}
		idx--
	}
	b.WriteByte('.')
	for _, t := range toks[1:] {
		switch t.kind {
		case tDigit:
			b.WriteString(chars[k])
			k++
		case tComma:
		default:
			writeLiteral(b, t)
		}
	}
}

// formatFraction shows a ≥ 0 as a fraction ("# ?/?", "# ??/??", "?/8").
func (sec *fmtSection) formatFraction(a float64, slash int) string {
	toks := sec.tokens
	// Denominator: placeholders after the slash, or a fixed number.
	denPH, fixed := 0, ""
	for i := slash + 1; i < len(toks); i++ {
		switch {
		case toks[i].kind == tDigit && (toks[i].ch != '0' || fixed == ""):
			if fixed == "" {
				denPH++
			}
		case toks[i].kind == tLit && len(toks[i].lit) > 0 && toks[i].lit[0] >= '1' && toks[i].lit[0] <= '9':
			fixed = strings.TrimRight(toks[i].lit, " ")
		}
	}
	// A whole part: placeholders, then a literal, before the numerator.
	whole := false
	for i := 0; i < slash; i++ {
		if toks[i].kind == tLit && strings.TrimSpace(toks[i].lit) == "" && hasDigitBefore(toks, i) {
			whole = true
		}
	}
	w := 0.0
	f := a
	if whole {
		w = math.Floor(a)
		f = a - w
	}
	num, den := 0, 1
	if d, err := strconv.Atoi(fixed); err == nil && d > 0 {
		den, num = d, int(math.Round(f*float64(d)))
	} else {
		maxDen := int(math.Pow(10, float64(max(denPH, 1)))) - 1
		best := math.Inf(1)
		for d := 1; d <= maxDen; d++ {
			n := math.Round(f * float64(d))
			if e := math.Abs(f - n/float64(d)); e < best-1e-12 {
				best, num, den = e, int(n), d
			}
		}
	}
	if whole && num == den {
		w++
		num = 0
	}
	var b strings.Builder
	if whole {
		if w != 0 || num == 0 {
			b.WriteString(strconv.FormatFloat(w, 'f', 0, 64))
		}
		if num == 0 {
			return strings.TrimSpace(b.String())
		}
		b.WriteByte(' ')
	}
	b.WriteString(strconv.Itoa(num))
	b.WriteByte('/')
	b.WriteString(strconv.Itoa(den))
	return strings.TrimSpace(b.String())
}

// Month and day names, English and Indonesian.
var (
	monthsEN = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	monthsID = []string{"Januari", "Februari", "Maret", "April", "Mei", "Juni", "Juli", "Agustus", "September", "Oktober", "November", "Desember"}
	mAbbrID  = []string{"Jan", "Feb", "Mar", "Apr", "Mei", "Jun", "Jul", "Agu", "Sep", "Okt", "Nov", "Des"}
	daysEN   = []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
	daysID   = []string{"Minggu", "Senin", "Selasa", "Rabu", "Kamis", "Jumat", "Sabtu"}
	dAbbrID  = []string{"Min", "Sen", "Sel", "Rab", "Kam", "Jum", "Sab"}
)

// formatDate shows a serial through a date or time section; false when the serial is no
// date (past 9999-12-31).
func (sec *fmtSection) formatDate(v float64, date1904 bool) (string, bool) {
	fracDigits := 0
	for _, t := range sec.tokens {
		if t.kind == tFracSec {
			fracDigits = t.n
		}
	}
	t, ok := serialTime(v, date1904, fracDigits)
	if !ok {
		return "", false
	}
	year, month, day := t.Date()
	weekday := t.Weekday()
	if !date1904 && t.Before(epoch1900.AddDate(0, 0, 2)) {
		// Serial 0 is "0 January 1900" to Excel (a Saturday, the day before the 1st).
		year, month, day, weekday = 1900, time.January, 0, time.Saturday
	}
	// Elapsed time counts from the serial itself.
	unit := math.Pow(10, float64(fracDigits))
	totalSec := math.Round(v*86400*unit) / unit
	var b strings.Builder
	pad := func(n, w int) {
		s := strconv.Itoa(n)
		for len(s) < w {
			s = "0" + s
		}
		b.WriteString(s)
	}
	for _, tk := range sec.tokens {
		switch tk.kind {
		case tLit:
			b.WriteString(tk.lit)
		case tYear:
			if tk.n == 2 {
				pad(year%100, 2)
			} else {
				pad(year, 4)
			}
		case tMonth:
			m := int(month) - 1
			switch tk.n {
			case 1, 2:
				pad(m+1, tk.n)
			case 3:
				if sec.indo {
					b.WriteString(mAbbrID[m])
				} else {
					b.WriteString(monthsEN[m][:3])
				}
			case 4:
				if sec.indo {
					b.WriteString(monthsID[m])
				} else {
					b.WriteString(monthsEN[m])
				}
			default:
				b.WriteString(monthsEN[m][:1])
			}
		case tDay:
			switch tk.n {
			case 1, 2:
				pad(day, tk.n)
			case 3:
				if sec.indo {
					b.WriteString(dAbbrID[weekday])
				} else {
					b.WriteString(daysEN[weekday][:3])
				}
			default:
				if sec.indo {
					b.WriteString(daysID[weekday])
				} else {
					b.WriteString(daysEN[weekday])
				}
			}
		case tHour:
			h := t.Hour()
			if sec.hour12 {
				h %= 12
				if h == 0 {
					h = 12
				}
			}
			pad(h, tk.n)
		case tMinute:
			pad(t.Minute(), tk.n)
		case tSecond:
			pad(t.Second(), tk.n)
		case tFracSec:
			f := strconv.Itoa(t.Nanosecond() / int(math.Pow(10, float64(9-tk.n))))
			for len(f) < tk.n {
				f = "0" + f
			}
			b.WriteByte('.')
			b.WriteString(f)
		case tAMPM:
			am := t.Hour() < 12
			switch {
			case len(tk.lit) == 3 && am:
				b.WriteString(tk.lit[:1])
			case len(tk.lit) == 3:
				b.WriteString(tk.lit[2:])
			case am:
				b.WriteString(tk.lit[:2])
			default:
				b.WriteString(tk.lit[3:])
			}
		case tElapsedH:
			pad(int(totalSec/3600), tk.n)
		case tElapsedM:
			pad(int(totalSec/60), tk.n)
		case tElapsedS:
			pad(int(totalSec), tk.n)
		case tDigit:
			b.WriteByte(tk.ch)
		case tComma:
			b.WriteByte(',')
		case tPoint:
			b.WriteByte('.')
		default:
			writeLiteral(&b, tk)
		}
	}
	return strings.TrimSpace(b.String()), true
}

// The first days of the date systems: the 1900 system counts from 1899-12-30 for every
// serial from 61 (1900-03-01) on, Excel having kept Lotus' 29 February 1900.
var (
	epoch1900 = time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC)
	epoch1904 = time.Date(1904, 1, 1, 0, 0, 0, 0, time.UTC)
)

// maxSerial is 9999-12-31 on the 1900 system.
const maxSerial = 2_958_465

// serialTime is a serial number's date and time, rounded to the second (or to fracDigits
// digits of a second).
func serialTime(v float64, date1904 bool, fracDigits int) (time.Time, bool) {
	if v < 0 || v > maxSerial+1 || math.IsNaN(v) {
		return time.Time{}, false
	}
	epoch := epoch1900
	if date1904 {
		epoch = epoch1904
	} else if v < 61 {
		// Before the invented 29 February 1900 the days are one later than the
		// arithmetic says; the 29th itself shows as the 28th.
		if v >= 60 {
			v -= 1
		}
		epoch = epoch.AddDate(0, 0, 1)
	}
	days := math.Floor(v)
	unit := math.Pow(10, float64(fracDigits))
	ns := math.Round((v-days)*86400*unit) / unit * 1e9
	t := epoch.AddDate(0, 0, int(days)).Add(time.Duration(ns))
	return t, true
}

// timeSerial is a time's serial number on a date system (the inverse of serialTime).
func timeSerial(t time.Time, date1904 bool) float64 {
	epoch := epoch1900
	if date1904 {
		epoch = epoch1904
	}
	d := t.Sub(epoch)
	v := d.Hours() / 24
	if !date1904 && v < 61 {
		v-- // before 1 March 1900 serials count from 31 December 1899
	}
	return v
}
