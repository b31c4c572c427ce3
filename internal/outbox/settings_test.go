package outbox

import (
	"testing"
	"time"
)

// The sending hours, school time (Jakarta, UTC+7): an instant within them is itself,
// one before today's start waits for it, one at or after the end waits for tomorrow's.
func TestHoursNext(t *testing.T) {
	jkt := time.FixedZone("WIB", 7*3600)
	h := Hours{From: 6 * 60, To: 20 * 60}
	day := func(s string) time.Time {
		v, err := time.ParseInLocation("2006-01-02 15:04", s, jkt)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct{ at, want string }{
		{"2026-11-22 10:00", "2026-11-22 10:00"},
		{"2026-11-22 06:00", "2026-11-22 06:00"},
		{"2026-11-22 05:59", "2026-11-22 06:00"},
		{"2026-11-22 00:30", "2026-11-22 06:00"}, // 17:30 UTC the day before
		{"2026-11-22 19:59", "2026-11-22 19:59"},
		{"2026-11-22 20:00", "2026-11-23 06:00"},
		{"2026-12-31 22:00", "2027-01-01 06:00"},
	} {
		if got := h.Next(day(c.at), jkt); !got.Equal(day(c.want)) {
			t.Errorf("Next(%s) = %s, want %s", c.at, got.In(jkt).Format("2006-01-02 15:04"), c.want)
		}
		if got, want := h.Within(day(c.at), jkt), c.at == c.want; got != want {
			t.Errorf("Within(%s) = %v", c.at, got)
		}
	}
}

// A clock as a bursar writes it: "06:00" or "6.00"; "24:00" is the day's end.
func TestParseClock(t *testing.T) {
	for in, want := range map[string]int{"06:00": 360, "6.00": 360, " 19:30 ": 1170, "24:00": 1440, "0:00": 0} {
		if got, ok := parseClock(in); !ok || got != want {
			t.Errorf("parseClock(%q) = %d %v, want %d", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "6", "06:0", "25:00", "24:01", "12:60", "-1:00", "ab:cd"} {
		if got, ok := parseClock(in); ok {
			t.Errorf("parseClock(%q) = %d, want refused", in, got)
		}
	}
}

// Terms: the first half of a school year is July to December, the second January to
// June of the next calendar year; a notice's form carries them as "2026-1".
func TestTerms(t *testing.T) {
	for _, c := range []struct {
		day  string
		want Term
	}{{"2026-07-01", Term{2026, 1}}, {"2026-12-31", Term{2026, 1}}, {"2027-01-01", Term{2026, 2}}, {"2027-06-30", Term{2026, 2}}} {
		d, _ := time.Parse(time.DateOnly, c.day)
		if got := TermOf(d); got != c.want {
			t.Errorf("TermOf(%s) = %v, want %v", c.day, got, c.want)
		}
		from, to := c.want.Range()
		if d.Before(from) || d.After(to) {
			t.Errorf("%s is outside its term's range %s–%s", c.day, from.Format(time.DateOnly), to.Format(time.DateOnly))
		}
		if back, ok := ParseTerm(c.want.String()); !ok || back != c.want {
			t.Errorf("ParseTerm(%q) = %v %v", c.want.String(), back, ok)
		}
	}
	for _, in := range []string{"", "2026", "2026-3", "2026-0", "x-1", "1999-1"} {
		if _, ok := ParseTerm(in); ok {
			t.Errorf("ParseTerm(%q) accepted", in)
		}
	}
}
