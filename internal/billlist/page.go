package billlist

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/component"
)

// Totals sum the rows of one page.
type Totals struct {
	Count        int
	Amount       int64 // face amounts
	PenaltyToday int64 // penalties that apply today to the overdue rows
	DueToday     int64 // what the unpaid, payable rows cost today
	Paid         int64 // what was paid for the paid rows
}

// Total sums bills on today.
func Total(bs []billing.Bill, today time.Time) Totals {
	t := Totals{Count: len(bs)}
	for _, b := range bs {
		t.Amount += b.Amount
		t.PenaltyToday += component.PenaltyToday(b, today)
		t.DueToday += b.DueToday(today)
		if b.State == billing.StatePaid {
			t.Paid += b.AmountPaid
		}
	}
	return t
}

// The sort keys of the browser; "-key" sorts descending.
const (
	SortDue    = "due"
	SortAmount = "amount"
	SortNIS    = "nis"
	SortPaid   = "paid"
)

// SortKeys lists the sortable columns.
var SortKeys = []string{SortDue, SortAmount, SortNIS, SortPaid}

// Sort is a parsed sort parameter.
type Sort struct {
	Key  string
	Desc bool
}

// ParseSort reads "due", "-amount", ...; "" is the service's order (newest first) and ok.
func ParseSort(s string) (Sort, bool) {
	if s == "" {
		return Sort{}, true
	}
	srt := Sort{Key: strings.TrimPrefix(s, "-"), Desc: strings.HasPrefix(s, "-")}
	if !slices.Contains(SortKeys, srt.Key) {
		return Sort{}, false
	}
	return srt, true
}

// String is the parameter value of s.
func (s Sort) String() string {
	if s.Key == "" {
		return ""
	}
	if s.Desc {
		return "-" + s.Key
	}
	return s.Key
}

// Toggle is the sort a column header links to: its key ascending, or flipped when it is
// already the current sort.
func Toggle(current, key string) string {
	s, _ := ParseSort(current)
	if s.Key == key && !s.Desc {
		return "-" + key
	}
	return key
}

// SortBills sorts one page in place by the sort parameter. Ties keep the service's order
// (newest first); rows without a payment date go last whichever the direction.
func SortBills(bs []billing.Bill, sort string) {
	s, ok := ParseSort(sort)
	if !ok || s.Key == "" {
		return
	}
	dir := func(c int) int {
		if s.Desc {
			return -c
		}
		return c
	}
	slices.SortStableFunc(bs, func(a, b billing.Bill) int {
		switch s.Key {
		case SortDue:
			return dir(a.Due.Compare(b.Due))
		case SortAmount:
			return dir(cmp.Compare(a.Amount, b.Amount))
		case SortNIS:
			return dir(compareNIS(a.NIS, b.NIS))
		case SortPaid:
			switch az, bz := a.PaidAt.IsZero(), b.PaidAt.IsZero(); {
			case az && bz:
				return 0
			case az:
				return 1
			case bz:
				return -1
			}
			return dir(a.PaidAt.Compare(b.PaidAt))
		}
		return 0
	})
}

// compareNIS orders numeric NIS by value (9 before 10) and anything else as text.
func compareNIS(a, b string) int {
	if digits(a) && digits(b) {
		a, b = strings.TrimLeft(a, "0"), strings.TrimLeft(b, "0")
		if c := cmp.Compare(len(a), len(b)); c != 0 {
			return c
		}
	}
	return strings.Compare(a, b)
}

func digits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}
