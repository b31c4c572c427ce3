package i18n

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// NBSP is the no-break space between "Rp" and its number, so a line never ends in "Rp".
const NBSP = "\u00a0"

// Rupiah formats whole rupiah as "Rp 1.250.000" (negative: "-Rp 5.000"), with a no-break
// space after "Rp" so the two never wrap apart. It is the same in both languages:
// Indonesian finance staff expect dot-grouped rupiah even on English pages.
func Rupiah(v int64) string {
	if v < 0 {
		return "-Rp" + NBSP + groupDigits(strconv.FormatUint(negAbs(v), 10))
	}
	return "Rp" + NBSP + groupDigits(strconv.FormatInt(v, 10))
}

// Number formats an integer with dots between thousands: "1.250.000". Counts are grouped
// the same way in both languages, like rupiah, so one page never mixes 1,250 and 1.250;
// integer arguments of messages (%d) go through it on their own (see Printer.T).
func Number(v int64) string {
	if v < 0 {
		return "-" + groupDigits(strconv.FormatUint(negAbs(v), 10))
	}
	return groupDigits(strconv.FormatInt(v, 10))
}

// negAbs returns |v| for negative v without overflowing at math.MinInt64.
func negAbs(v int64) uint64 { return uint64(-(v + 1)) + 1 }

func groupDigits(d string) string {
	if len(d) <= 3 {
		return d
	}
	var b strings.Builder
	b.Grow(len(d) + len(d)/3)
	first := len(d) % 3
	if first == 0 {
		first = 3
	}
	b.WriteString(d[:first])
	for i := first; i < len(d); i += 3 {
		b.WriteByte('.')
		b.WriteString(d[i : i+3])
	}
	return b.String()
}

var (
	monthShortID = [12]string{"Jan", "Feb", "Mar", "Apr", "Mei", "Jun", "Jul", "Agu", "Sep", "Okt", "Nov", "Des"}
	monthShortEN = [12]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
	monthFullID  = [12]string{"Januari", "Februari", "Maret", "April", "Mei", "Juni", "Juli", "Agustus", "September", "Oktober", "November", "Desember"}
	monthFullEN  = [12]string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
)

// MonthShort returns the three-letter month name in lang ("Agu" / "Aug").
func MonthShort(lang Lang, m time.Month) string {
	if m < time.January || m > time.December {
		return strconv.Itoa(int(m))
	}
	if lang == English {
		return monthShortEN[m-1]
	}
	return monthShortID[m-1]
}

// MonthFull returns the full month name in lang ("Agustus" / "August").
func MonthFull(lang Lang, m time.Month) string {
	if m < time.January || m > time.December {
		return strconv.Itoa(int(m))
	}
	if lang == English {
		return monthFullEN[m-1]
	}
	return monthFullID[m-1]
}

// monthNames maps every accepted spelling, lower case, to its month.
var monthNames = func() map[string]time.Month {
	names := make(map[string]time.Month, 48)
	for i := range 12 {
		m := time.Month(i + 1)
		for _, s := range []string{monthShortID[i], monthShortEN[i], monthFullID[i], monthFullEN[i]} {
			names[strings.ToLower(s)] = m
		}
	}
	// Spellings seen in school spreadsheets.
	names["sept"] = time.September
	names["nop"] = time.November
	names["nopember"] = time.November
	names["pebruari"] = time.February
	return names
}()

// ParseMonthShort reads a month name in Indonesian or English, short or full,
// in any case ("Des", "Dec", "Desember", "agu", "MAY"); spreadsheets from
// schools mix all of them.
func ParseMonthShort(s string) (time.Month, bool) {
	m, ok := monthNames[strings.ToLower(strings.TrimSuffix(strings.TrimSpace(s), "."))]
	return m, ok
}

// MonthName returns the full month name in p's language ("Desember" / "December").
func (p Printer) MonthName(m time.Month) string { return MonthFull(p.Lang, m) }

func (p Printer) loc() *time.Location {
	if p.Loc == nil {
		return jakarta
	}
	return p.Loc
}

func (p Printer) ymd(y int, m time.Month, d int) string {
	return fmt.Sprintf("%d %s %d", d, MonthShort(p.Lang, m), y)
}

// Two kinds of time are printed as a date, and each has its own method; neither guesses
// which it was given:
//   - Day: a calendar day that travels as UTC midnight (a component's due, expiry and
//     active days; clock.Clock.Day; a report's "as of"). Its UTC date is the day.
//   - Date (and DateTime): an instant (now, a payment's time, clock.Clock.Today), shown
//     in the school's zone p.Loc: at 01:30 WIB on the 28th, the 28th, though UTC is
//     still on the 27th. Passing an instant to Day would print the UTC date: yesterday,
//     between 00:00 and 07:00 WIB.

// Date shows the calendar date of instant t in p.Loc, the school's zone: "22 Nov 2026",
// "5 Agu 2026".
func (p Printer) Date(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	y, m, d := t.In(p.loc()).Date()
	return p.ymd(y, m, d)
}

// Day shows a calendar day that travels as a UTC-midnight timestamp (due and
// expiry dates, clock.Clock.Day). It reads the UTC date on purpose: shifting it into
// the zone would be harmless for Jakarta but moves the day back for any zone west of
// UTC. An instant is not a day: print it with Date.
func (p Printer) Day(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	y, m, d := t.UTC().Date()
	return p.ymd(y, m, d)
}

// DateTime shows instant t in p.Loc with minutes: "22 Nov 2026 14:05".
func (p Printer) DateTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	lt := t.In(p.loc())
	y, m, d := lt.Date()
	return fmt.Sprintf("%s %02d:%02d", p.ymd(y, m, d), lt.Hour(), lt.Minute())
}

// Month shows the month of instant t in p.Loc: "Nov 2026".
func (p Printer) Month(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	y, m, _ := t.In(p.loc()).Date()
	return fmt.Sprintf("%s %d", MonthShort(p.Lang, m), y)
}

// MonthYear shows the month of instant t in p.Loc with the full name: "November 2026".
func (p Printer) MonthYear(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	y, m, _ := t.In(p.loc()).Date()
	return fmt.Sprintf("%s %d", MonthFull(p.Lang, m), y)
}

// RelDays says how a due day relates to today, days being today minus the due
// day: positive is late ("terlambat 5 hari"), negative is still to come
// ("dalam 3 hari"), zero is "hari ini".
func (p Printer) RelDays(days int) string {
	switch {
	case days == 0:
		return p.T("rel.today")
	case days > 0:
		return p.plural(days, "rel.late")
	default:
		return p.plural(-days, "rel.in")
	}
}

// Ago says how long ago something happened, for "last synced" style notes.
func (p Printer) Ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return p.T("ago.now")
	case d < time.Hour:
		return p.plural(int(d/time.Minute), "ago.minutes")
	case d < 24*time.Hour:
		return p.plural(int(d/time.Hour), "ago.hours")
	default:
		return p.plural(int(d/(24*time.Hour)), "ago.days")
	}
}

// plural picks key+".one" for 1 and key+".other" otherwise. Indonesian does
// not inflect, but the catalogue keeps both forms so English reads right.
func (p Printer) plural(n int, key string) string {
	if n == 1 {
		return p.T(key+".one", n)
	}
	return p.T(key+".other", n)
}

// DayCount returns the whole days from calendar day due (UTC-midnight) to
// today, today being the date of now in loc; positive means due is past. It is
// the number RelDays expects.
func DayCount(now time.Time, loc *time.Location, due time.Time) int {
	if loc == nil {
		loc = jakarta
	}
	y, m, d := now.In(loc).Date()
	today := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	dy, dm, dd := due.UTC().Date()
	dueDay := time.Date(dy, dm, dd, 0, 0, 0, 0, time.UTC)
	return int(today.Sub(dueDay).Hours() / 24)
}
