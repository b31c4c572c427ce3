package uploads

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sekolah/portal/internal/sheets"
	"github.com/sekolah/portal/internal/store"
)

// What a cell may hold that is not what was meant, though every rule takes it: the
// warnings (keys under "uploads.warn."). None stops its row, and each kind must be
// acknowledged by the person before the upload is committed (AckCodes): a bursar on a
// computer set to English types 350.000 and 10/08/2027 as Indonesians do, and the
// spreadsheet stores 350 and 8 October.
const (
	// WarnAmountSmall: an amount or late fee under Rp 1.000 (350 for 350.000).
	WarnAmountSmall = "amount_small"
	// WarnAmountBelow: an amount far below the others of the same bill name (a hundredth
	// or less of their median).
	WarnAmountBelow = "amount_below"
	// WarnDateOrder: a date cell read month-first in a sheet whose typed dates are
	// day-first (or the reverse): 10/08/2027 stored as 8 October.
	WarnDateOrder = "date_order"
	// WarnDateOutside: a due day outside the school year around today.
	WarnDateOutside = "date_outside"
	// WarnTotalRow: a row that sums the others ("Jumlah"): skipped, said once.
	WarnTotalRow = "total_row"
	// WarnMerged: a merged range filled down (a NIS merged over three rows), said once.
	WarnMerged = "merged"
	// WarnNISRestored: a NIS read as the existing student it is once its lost leading
	// zeros are put back (12345 → 0012345).
	WarnNISRestored = "nis_restored"
	// WarnNameMatches: a new NIS whose name is an existing student's: confirm it is
	// another student, not the same one under a mistyped number.
	WarnNameMatches = "name_matches"
)

// WarnCodes are every warning; each has a message "uploads.warn.<code>" and a line of its
// own to acknowledge, "uploads.ack.<code>".
var WarnCodes = []string{WarnAmountSmall, WarnAmountBelow, WarnDateOrder, WarnDateOutside, WarnTotalRow, WarnMerged,
	WarnNISRestored, WarnNameMatches}

// ackErrors are the problems that, like the warnings, must be acknowledged: a formula's
// error is said by its name and its row not sent, and the person confirms they know the
// sheet's formulas failed there.
var ackErrors = []string{"formula_error"}

// IsWarning reports whether a stored issue's code is a warning (its row is still sent).
func IsWarning(code string) bool { return strings.HasPrefix(code, warnKeyPrefix) }

// AckCodes are the kinds of warning (and of formula error) an analysed upload has, which
// the person must acknowledge before it is committed, in the order WarnCodes lists them.
func AckCodes(j Job) []string {
	has := map[string]bool{}
	for _, k := range j.IssueKinds {
		code := k.Code
		switch {
		case strings.HasPrefix(code, warnKeyPrefix):
			has[strings.TrimPrefix(code, warnKeyPrefix)] = true
		case strings.HasPrefix(code, issueKeyPrefix):
			has[strings.TrimPrefix(code, issueKeyPrefix)] = true
		}
	}
	var out []string
	for _, c := range append(slices.Clone(WarnCodes), ackErrors...) {
		if has[c] {
			out = append(out, c)
		}
	}
	return out
}

// minAmount is the least a bill or late fee plausibly is: Rp 1.000.
const minAmount = 1_000

// belowFactor: an amount at or under the median of its bill name's divided by it is far
// below the others (350 among 350.000s is a thousandth).
const belowFactor = 100

// median of a list of amounts (sorted in place).
func median(a []int64) int64 {
	slices.Sort(a)
	return a[len(a)/2]
}

// order is which comes first in a date: the day or the month.
type order int8

const (
	orderNone       order = iota // written so that it cannot be misread: 2027-08-10, 10 Agu 2027
	orderDayFirst                // 10/08/2027 is 10 August
	orderMonthFirst              // 10/08/2027 is 8 October
	// orderLocale: Excel's short date (built-in format 14), shown in the order of the
	// computer that opens the file, and read in the order of the one it was typed on.
	orderLocale
)

// formatOrder is the order of a date cell's number format: "dd/mm/yyyy" is day-first,
// "m/d/yyyy" (Excel's short date on a computer set to English) month-first, "yyyy-mm-dd"
// and formats with the month's name neither.
func formatOrder(code string) order {
	switch strings.ToLower(code) {
	case "mm-dd-yy", "m/d/yyyy", "m/d/yy", "mm/dd/yy":
		// Format 14, the computer's short date: internal/sheets names it by Excel's US
		// code, and LibreOffice writes it into an .xls or .ods as "MM/DD/YY" whatever its
		// language.
		return orderLocale
	}
	d, m := -1, -1
	quoted := false
	for i := 0; i < len(code); i++ {
		c := code[i] | 0x20
		switch {
		case code[i] == '"':
			quoted = !quoted
		case quoted:
		case code[i] == '[':
			if j := strings.IndexByte(code[i:], ']'); j > 0 {
				i += j
			}
		case code[i] == '\\':
			i++
		case c == 'd' && d < 0:
			d = i
		case c == 'm' && m < 0:
			n := 0
			for i+n < len(code) && code[i+n]|0x20 == 'm' {
				n++
			}
			if n >= 3 {
				return orderNone // the month's name
			}
			m = i
		case c == 'y' && d < 0 && m < 0:
			return orderNone // year first: ISO
		}
	}
	switch {
	case d < 0 || m < 0:
		return orderNone
	case d < m:
		return orderDayFirst
	}
	return orderMonthFirst
}

// textOrder is what a typed date says of its order: 25/07/2027 is day-first (no month
// 25), 07/25/2027 month-first; 10/08/2027 says nothing.
func textOrder(s string) order {
	parts := strings.FieldsFunc(s, func(r rune) bool { return r == '/' || r == '-' || r == '.' })
	if len(parts) != 3 || len(parts[0]) > 2 || len(parts[1]) > 2 || len(parts[2]) != 2 && len(parts[2]) != 4 {
		return orderNone // 2027-08-10 and 10 Agustus 2027 cannot be misread
	}
	var n [3]int
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil {
			return orderNone
		}
		n[i] = v
	}
	if n[2] < 100 {
		n[2] += 2000
	}
	dayFirst, monthFirst := realDate(n[2], n[1], n[0]), realDate(n[2], n[0], n[1])
	switch {
	case dayFirst && !monthFirst:
		return orderDayFirst
	case monthFirst && !dayFirst:
		return orderMonthFirst
	}
	return orderNone // 10/08/2027 reads either way; 31/02/2027 neither
}

// realDate reports whether y-m-d is a day of the calendar.
func realDate(y, m, d int) bool {
	if m < 1 || m > 12 || d < 1 || d > 31 {
		return false
	}
	return time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).Day() == d
}

// dateCell is a date cell whose day and month could be swapped (both 12 or less, not
// equal), with the order its format shows it in.
type dateCell struct {
	row   int32
	col   int16
	order order
	day   int32 // days since 1970-01-01
}

// dateOrders notes, for a sheet, the order its typed dates show and the date cells that
// could have been read the other way round.
type dateOrders struct {
	typed [3]int // text dates by the order they show
	cells []dateCell
}

// note is told of a date read from a cell: a text's order, or a date cell to look at
// again once the sheet's order is known.
func (d *dateOrders) note(row, col int, c sheets.Cell, text string, t time.Time) {
	switch c.Kind {
	case sheets.KindText:
		d.noteText(c, text)
	case sheets.KindDate:
		o := formatOrder(c.Format)
		if o != orderNone && t.Day() <= 12 && t.Day() != int(t.Month()) {
			d.cells = append(d.cells, dateCell{row: int32(row), col: int16(col), order: o, day: epochDay(t)})
		}
	}
}

// noteText is told of a text date, read as one or not (07/25/2027 on a computer set to
// Indonesian): its order is evidence of the order the person types, and that the
// spreadsheet did not take it for a date. Not in a cell formatted as text ("@"): that one
// stayed a text whatever the computer.
func (d *dateOrders) noteText(c sheets.Cell, text string) {
	if c.Format != "@" {
		d.typed[textOrder(text)]++
	}
}

// misread are the date cells read in the order the sheet's typed dates do not use. A text
// that is a date only day-first (25/07/2027) says the person types the day first, and,
// left a text, that the spreadsheet it was typed into did not (on a computer set to
// English it reads 10/08/2027 as 8 October): so the date cells shown month-first, or in
// the computer's own order (Excel's short date), may be swapped. Or the reverse. Each
// comes with the date it would be the other way round.
func (d *dateOrders) misread(yield func(c dateCell, read, other time.Time)) {
	var sheet order
	switch {
	case d.typed[orderDayFirst] > 0 && d.typed[orderMonthFirst] == 0:
		sheet = orderDayFirst
	case d.typed[orderMonthFirst] > 0 && d.typed[orderDayFirst] == 0:
		sheet = orderMonthFirst
	default:
		return
	}
	for _, c := range d.cells {
		if c.order == sheet || c.order == orderNone {
			continue
		}
		t := dayOfEpoch(c.day)
		yield(c, t, time.Date(t.Year(), time.Month(t.Day()), int(t.Month()), 0, 0, 0, 0, time.UTC))
	}
}

// SchoolYear is the school year (from July to June) a day falls in, and its first day:
// 2027/2028 from 1 July 2027.
func SchoolYear(day time.Time) (string, time.Time) {
	y := day.Year()
	if day.Month() < time.July {
		y--
	}
	return strconv.Itoa(y) + "/" + strconv.Itoa(y+1), time.Date(y, time.July, 1, 0, 0, 0, 0, time.UTC)
}

// schoolYears are the days a due day is expected in, around today: the school year today
// is in, and from April the next one too (its bills are prepared before July).
func schoolYears(today time.Time) (from, to time.Time, name string) {
	name, from = SchoolYear(today)
	to = from.AddDate(1, 0, 0)
	if today.Month() >= time.April && today.Month() < time.July {
		next, _ := SchoolYear(to)
		name += ", " + next
		to = to.AddDate(1, 0, 0)
	}
	return from, to, name
}

// rosterIndex is the portal's roster as a students sheet's numbers are checked against
// it: which NIS exist, their names, and the length most of them share.
type rosterIndex struct {
	nis    map[string]string   // NIS → name key
	names  map[string][]string // name key → NIS
	length int                 // the length most NIS have (0 for an empty roster)
}

// loadRoster reads the whole roster once (a school's few thousand students).
func loadRoster(ctx context.Context, r RosterReader) (*rosterIndex, error) {
	ix := &rosterIndex{nis: map[string]string{}, names: map[string][]string{}}
	lengths := map[int]int{}
	err := r.AllStudents(ctx, func(s store.Student) error {
		k := nameKey(s.Name)
		ix.nis[s.NIS] = k
		if len(ix.names[k]) < 4 {
			ix.names[k] = append(ix.names[k], s.NIS)
		}
		lengths[len(s.NIS)]++
		return nil
	})
	best := 0
	for l, n := range lengths {
		if n > best || n == best && l > ix.length {
			ix.length, best = l, n
		}
	}
	return ix, err
}

// restore is the existing student a NIS that the roster lacks stands for once its lost
// leading zeros are put back: all digits, and with zeros before it, a NIS the roster has
// of the roster's usual length, or of the same name (name: the row's, "" for none).
func (ix *rosterIndex) restore(nis, name string) (string, bool) {
	if ix == nil || nis == "" {
		return "", false
	}
	if _, ok := ix.nis[nis]; ok {
		return "", false
	}
	for i := 0; i < len(nis); i++ {
		if nis[i] < '0' || nis[i] > '9' {
			return "", false
		}
	}
	key := nameKey(name)
	for zeros := 1; len(nis)+zeros <= 30; zeros++ {
		cand := strings.Repeat("0", zeros) + nis
		have, ok := ix.nis[cand]
		if ok && (len(cand) == ix.length || key != "" && have == key) {
			return cand, true
		}
	}
	return "", false
}

// sameName is an existing student of the name (a name key), other than nis.
func (ix *rosterIndex) sameName(name, nis string) (string, bool) {
	if ix == nil {
		return "", false
	}
	for _, n := range ix.names[nameKey(name)] {
		if n != nis {
			return n, true
		}
	}
	return "", false
}
