package i18n

import (
	"regexp"
	"strings"
	"testing"
)

// countRE finds a count and the word after it: "%[2]d bills", or "%[2]s new bills" for a
// count passed already formatted (only the words below count there: a text argument is
// as often a name).
var (
	countRE     = regexp.MustCompile(`%\[(\d+)\]d\s+([A-Za-z]+)`)
	textCountRE = regexp.MustCompile(`%\[(\d+)\]s\s+(?:new\s+)?(bills|rows|items|students|payments|problems|components|errors|changes|calls|corrections)\b`)
)

// notCounted are the words that may follow a number without being what it counts: units
// (which English does not inflect when abbreviated) and words that are not nouns.
var notCounted = map[string]bool{"of": true, "KB": true, "s": true, "min": true, "h": true, "refused": true}

// TestEnglishCountsHavePlurals: an English message that counts something ("%[1]d bills")
// chooses its plural ("%[1]d {1:bill|bills}"), so one reads "1 bill", not "1 bills".
// Messages in .one/.other pairs choose by their key instead.
func TestEnglishCountsHavePlurals(t *testing.T) {
	catalogueMu.RLock()
	defer catalogueMu.RUnlock()
	for key, m := range catalogue {
		if strings.HasSuffix(key, ".one") || strings.HasSuffix(key, ".other") {
			continue
		}
		for _, c := range append(countRE.FindAllStringSubmatch(m.EN, -1), textCountRE.FindAllStringSubmatch(m.EN, -1)...) {
			if !notCounted[c[2]] && !strings.Contains(m.EN, "{"+c[1]+":") {
				t.Errorf("%s: %q counts %q without a plural choice {%s:one|many}", key, m.EN, c[2], c[1])
			}
		}
	}
}

// TestCountsReadRight: a count renders grouped and with the right English form, in both
// languages; a duration is never "0 seconds".
func TestCountsReadRight(t *testing.T) {
	id, en := Printer{Lang: Indonesian}, Printer{Lang: English}
	cases := []struct {
		p    Printer
		key  string
		args []any
		want string
	}{
		{en, "words.dashboard.payments_items", []any{1, 2}, "1 payment · 2 items"},
		{en, "words.dashboard.payments_items", []any{7244, 1}, "7.244 payments · 1 item"},
		{id, "words.dashboard.payments_items", []any{7244, 1}, "7.244 pembayaran · 1 tagihan"},
		{en, "words.dashboard.overdue_students", []any{1, 1}, "1 student · 1 item"},
		{en, "term.components_count", []any{2}, "2 items"},
		{en, "corrections.bulk.too_many", []any{1000}, "This selection holds more than 1.000 bills. Narrow it with the bills list's filters first."},
		{en, "form.too_long", []any{1}, "Too long: at most 1 character."},
		{en, "bills.count", []any{Number(1)}, "1 bill"},
		{en, "bills.count", []any{Number(7244)}, "7.244 bills"},
		{en, "uploads.count.error_sub", []any{"1"}, "1 problem; not sent"},
		{en, "ledger.changed.new", []any{"1"}, "1 new bill"},
		{en, "uploads.summary.recognised", []any{"1"}, "1 row turned out to be at the payment service already (its answer was lost on the way, or it was recorded elsewhere) and was not sent twice."},
	}
	for _, c := range cases {
		if got := c.p.T(c.key, c.args...); got != c.want {
			t.Errorf("%s %s %v = %q, want %q", c.p.Lang, c.key, c.args, got, c.want)
		}
	}
}
