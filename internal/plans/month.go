package plans

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Month is a calendar month, counted from January of year 0 (so months compare and add
// as integers). The zero Month is none: no plan runs in year 0.
type Month int

// MonthOf is month m of year y.
func MonthOf(y int, m time.Month) Month { return Month(y*12 + int(m) - 1) }

// MonthOfDay is the month of day t (its own calendar date).
func MonthOfDay(t time.Time) Month { return MonthOf(t.Year(), t.Month()) }

// ParseMonth reads "YYYY-MM" (also "YYYY-M"); false for anything else or a year outside
// 2000–2200.
func ParseMonth(s string) (Month, bool) {
	y, m, ok := strings.Cut(strings.TrimSpace(s), "-")
	if !ok || len(y) != 4 || len(m) < 1 || len(m) > 2 {
		return 0, false
	}
	yy, err1 := strconv.Atoi(y)
	mm, err2 := strconv.Atoi(m)
	if err1 != nil || err2 != nil || yy < 2000 || yy > 2200 || mm < 1 || mm > 12 {
		return 0, false
	}
	return MonthOf(yy, time.Month(mm)), true
}

// IsZero reports the zero Month (none).
func (m Month) IsZero() bool { return m == 0 }

// Year is the month's year.
func (m Month) Year() int { return int(m) / 12 }

// Month is the month of the year.
func (m Month) Month() time.Month { return time.Month(int(m)%12 + 1) }

// String is "YYYY-MM" ("" for none): how forms, the store and the plans' keys write it.
func (m Month) String() string {
	if m.IsZero() {
		return ""
	}
	return fmt.Sprintf("%04d-%02d", m.Year(), int(m.Month()))
}

// Add is the month n months later (earlier when n < 0).
func (m Month) Add(n int) Month { return m + Month(n) }

// Day is day d of the month (UTC midnight, the form of component days); a day past the
// month's last is its last (the 31st of February is the 28th or 29th).
func (m Month) Day(d int) time.Time {
	last := time.Date(m.Year(), m.Month()+1, 0, 0, 0, 0, 0, time.UTC).Day()
	return time.Date(m.Year(), m.Month(), min(max(d, 1), last), 0, 0, 0, 0, time.UTC)
}

// First is the month's first day.
func (m Month) First() time.Time { return m.Day(1) }

// SchoolYear is the school year the month belongs to ("2026/2027": July to June).
func (m Month) SchoolYear() string {
	y := m.Year()
	if m.Month() < time.July {
		y--
	}
	return fmt.Sprintf("%d/%d", y, y+1)
}
