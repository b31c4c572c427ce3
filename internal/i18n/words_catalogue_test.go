package i18n

import (
	"regexp"
	"strings"
	"testing"
)

// countRE finds an integer argument and the word after it: "%[2]d bills".
var countRE = regexp.MustCompile(`%\[(\d+)\]d\s+([A-Za-z]+)`)

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
		for _, c := range countRE.FindAllStringSubmatch(m.EN, -1) {
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
	}
	for _, c := range cases {
		if got := c.p.T(c.key, c.args...); got != c.want {
			t.Errorf("%s %s %v = %q, want %q", c.p.Lang, c.key, c.args, got, c.want)
		}
	}
}
