package billlist

import (
	"cmp"
	"slices"
	"strings"

	"github.com/sekolah/portal/internal/ledger"
)

// The sort keys of the browser, as the `sort` URL parameter spells them; "-key" sorts
// descending.
const (
	SortDue    = "due"
	SortAmount = "amount"
	SortNIS    = "nis" // numeric NIS by value, before the others
	SortPaid   = "paid"
)

// sortColumns is the ledger's sort column each key names.
var sortColumns = map[string]ledger.Sort{SortDue: ledger.SortDue, SortAmount: ledger.SortAmount, SortNIS: ledger.SortNIS,
	SortPaid: ledger.SortPaid}

// SortKeys lists the sortable columns.
var SortKeys = []string{SortDue, SortAmount, SortNIS, SortPaid}

// Sort is a parsed sort parameter.
type Sort struct {
	Key  string
	Desc bool
}

// DefaultSort is the order of a list without ?sort=: by due date, the longest overdue first,
// which is the order a finance officer works through the bills in.
var DefaultSort = Sort{Key: SortDue}

// ParseSort reads "due", "-amount", ...; "" is DefaultSort and ok. A sort orders the whole
// result, not only the page shown.
func ParseSort(s string) (Sort, bool) {
	if s == "" {
		return DefaultSort, true
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
