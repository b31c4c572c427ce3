package school

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Receipt numbers follow the school's pattern, such as "KW/{YYYY}/{MM}/{seq}": the year
// (also {YY}), month and day of the payment in the school's zone, and {seq}, a number
// kept in the database that starts again at 1 whenever the rest of the number changes
// (each month, for this pattern). {seq} has at least SeqDigits digits.

// SeqDigits is the least number of digits of {seq} ("0007").
const SeqDigits = 4

// MaxNumberLen is the longest receipt number (the counter's limit on reference numbers).
const MaxNumberLen = 40

// Pattern is a checked receipt number pattern.
type Pattern struct {
	text string
}

// PatternError says why a pattern cannot be used, as a catalogue key and its arguments.
type PatternError struct {
	Key  string
	Args []any
}

func (e *PatternError) Error() string { return "school: receipt pattern: " + e.Key }

var tokenRE = regexp.MustCompile(`\{[^{}]*\}`)

// literalOK is the charset of the fixed parts: what a reference number may hold.
var literalOK = regexp.MustCompile(`^[A-Za-z0-9./_-]*$`)

// ParsePattern checks a pattern: only the tokens {YYYY}, {YY}, {MM}, {MMR} (the month in
// Roman numerals, as letter numbers write it: XI), {DD} and exactly one
// {seq}; fixed parts of letters, digits and . / _ -; starting with a letter, a digit or a
// token; and numbers no longer than MaxNumberLen.
func ParsePattern(s string) (Pattern, error) {
	s = strings.TrimSpace(s)
	seqs := 0
	for _, tok := range tokenRE.FindAllString(s, -1) {
		switch tok {
		case "{YYYY}", "{YY}", "{MM}", "{MMR}", "{DD}":
		case "{seq}":
			seqs++
		default:
			return Pattern{}, &PatternError{Key: "school.err.pattern_token", Args: []any{tok}}
		}
	}
	if seqs != 1 {
		return Pattern{}, &PatternError{Key: "school.err.pattern_seq"}
	}
	fixed := tokenRE.ReplaceAllString(s, "")
	if !literalOK.MatchString(fixed) || strings.ContainsAny(fixed, "{}") {
		return Pattern{}, &PatternError{Key: "school.err.pattern_chars"}
	}
	p := Pattern{text: s}
	sample := p.Render(time.Date(2026, 12, 31, 0, 0, 0, 0, time.UTC), 1)
	if c := sample[0]; !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
		return Pattern{}, &PatternError{Key: "school.err.pattern_chars"}
	}
	if len(sample) > MaxNumberLen-2 { // room for {seq} to grow past 9999
		return Pattern{}, &PatternError{Key: "school.err.pattern_long", Args: []any{MaxNumberLen}}
	}
	return p, nil
}

// String is the pattern as written.
func (p Pattern) String() string { return p.text }

// dated replaces the date tokens with day t's values (t already in the school's zone).
func (p Pattern) dated(t time.Time) string {
	y, m, d := t.Date()
	return strings.NewReplacer(
		"{YYYY}", fmt.Sprintf("%04d", y), "{YY}", fmt.Sprintf("%02d", y%100), "{MMR}", romanMonths[m-1],
		"{MM}", fmt.Sprintf("%02d", int(m)), "{DD}", fmt.Sprintf("%02d", d),
	).Replace(p.text)
}

var romanMonths = [12]string{"I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII"}

// Render is receipt number n on day t.
func (p Pattern) Render(t time.Time, n int64) string {
	return strings.Replace(p.dated(t), "{seq}", fmt.Sprintf("%0*d", SeqDigits, n), 1)
}

// Scope is the sequence a number of day t counts in: the number without its {seq}.
func (p Pattern) Scope(t time.Time) string { return p.dated(t) }

// Match reports whether ref is a number of this pattern on day t, and which.
func (p Pattern) Match(ref string, t time.Time) (int64, bool) {
	parts := strings.SplitN(p.dated(t), "{seq}", 2)
	re, err := regexp.Compile(`(?i)^` + regexp.QuoteMeta(parts[0]) + `([0-9]{1,15})` + regexp.QuoteMeta(parts[1]) + `$`)
	if err != nil {
		return 0, false
	}
	m := re.FindStringSubmatch(strings.TrimSpace(ref))
	if m == nil {
		return 0, false
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	return n, err == nil && n > 0
}

// pattern is the school's pattern; ok is false when it has none (or a broken one).
func (s *Service) pattern(ctx context.Context) (Pattern, bool, error) {
	prof, err := s.DB.SchoolProfile(ctx)
	if err != nil || prof.ReceiptPattern == "" {
		return Pattern{}, false, err
	}
	p, err := ParsePattern(prof.ReceiptPattern)
	if err != nil {
		return Pattern{}, false, nil
	}
	return p, true, nil
}

func (s *Service) today() time.Time { return s.Clock.Today() }

// SuggestReceipt is the next receipt number of the school's pattern today, or "" when
// the school has no pattern. It only reads, so the same number may be suggested to two
// people at once: the counter warns the second one that it was used meanwhile.
func (s *Service) SuggestReceipt(ctx context.Context) (string, error) {
	p, ok, err := s.pattern(ctx)
	if err != nil || !ok {
		return "", err
	}
	day := s.today()
	n, err := s.DB.NextReceiptNumber(ctx, p.Scope(day))
	if err != nil {
		return "", err
	}
	return p.Render(day, n), nil
}

// ReceiptUsed notes that a payment was recorded under ref: when ref is a number of the
// school's pattern today (suggested or typed), the sequence moves past it.
func (s *Service) ReceiptUsed(ctx context.Context, ref string) error {
	p, ok, err := s.pattern(ctx)
	if err != nil || !ok {
		return err
	}
	day := s.today()
	n, ok := p.Match(ref, day)
	if !ok {
		return nil
	}
	return s.DB.UseReceiptNumber(ctx, p.Scope(day), n)
}
