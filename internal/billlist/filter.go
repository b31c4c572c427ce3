// Package billlist is the bills list of the portal: reading the browser's filters from the
// URL into a ledger query (and writing them back into links: tabs, sortable headers,
// pages), and the upcoming dues grouped by day. The ledger (internal/ledger) answers the
// query: the page asked for in any order across the whole result, with the count and
// totals of all of it. How one component reads today is internal/component's; paying at
// the counter is internal/counter's. It has no HTTP in it; the handlers in web/ stay thin
// around it.
package billlist

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/internal/students"
)

// The browser's tabs, as the `state` URL parameter spells them (the service's words for
// the first three). Other pages link to them.
const (
	StateOutstanding = "provisioned" // open and payable today
	StatePaid        = "paid"
	StateExpired     = "expired" // open, past the expiry day
	StateAll         = "all"     // all but deleted
)

// tabs is the ledger's tab each state names.
var tabs = map[string]ledger.Tab{
	StateOutstanding: ledger.TabOutstanding, StatePaid: ledger.TabPaid, StateExpired: ledger.TabExpired, StateAll: ledger.TabAll,
}

// States lists the tabs in the order the page shows them.
var States = []string{StateOutstanding, StatePaid, StateExpired, StateAll}

// DefaultState is the tab shown when the URL names none: what is still to be collected.
const DefaultState = StateOutstanding

// PageSizes are the page sizes offered; anything else in the URL falls back to DefaultPageSize.
var PageSizes = []int{25, 50, 100, 200}

// DefaultPageSize is the page size when the URL names none.
const DefaultPageSize = 50

// MaxOffset is the largest row a paged list of the portal starts at (?offset=); a larger
// one in a URL is clamped to it before it reaches the service or the database. No list
// the portal shows has ten million rows, and offset plus a page stays far from overflowing.
const MaxOffset = 10_000_000

// Length limits of the free-text filters; longer values are refused, not cut.
const (
	MaxNotesLen = 200
	// MaxRefSearchLen bounds the ref filter, which also finds references banks recorded.
	MaxRefSearchLen = 100
	// MaxSearchLen bounds the search by a student's name or NIS.
	MaxSearchLen = 100
	// MaxNameLen bounds the item-name filter.
	MaxNameLen = 100
)

// The URL parameters of the browser. Other pages build links with these names.
const (
	ParamState    = "state"
	ParamAccount  = "account"
	ParamDueFrom  = "due_from"
	ParamDueTo    = "due_to"
	ParamPaidFrom = "paid_from"
	ParamPaidTo   = "paid_to"
	ParamNIS      = "nis"
	ParamClass    = "class"
	ParamSearch   = "q"
	ParamNotes    = "notes"
	ParamName     = "name" // part of the item's name
	ParamRef      = "ref"
	ParamOffset   = "offset"
	ParamPage     = "page"
	ParamLimit    = "limit"
	ParamSort     = "sort"
)

// DateLayout is how days travel in the URL (the value of an <input type="date">).
const DateLayout = "2006-01-02"

// Filter is the browser's state as it travels in the URL, kept as typed so that a form
// with a mistake shows exactly what was sent.
type Filter struct {
	State    string
	Account  string
	DueFrom  string
	DueTo    string
	PaidFrom string
	PaidTo   string
	NIS      string
	Class    string // the roster's class, exact
	Search   string // part of a student's name, or the start of a NIS
	Notes    string
	Name     string // part of the item's name ("Iuran Pramuka"), any letter case
	Ref      string
	Sort     string
	Offset   int
	Limit    int
}

// Request is a valid filter ready for the ledger.
type Request struct {
	Filter Filter
	Query  ledger.BillsQuery
}

// ParseFilter reads the browser's URL parameters. Paging values out of range fall back to
// their defaults; anything else that cannot be used is a Problem and the Request must not
// be sent. accounts are the account codes the service knows.
func ParseFilter(v url.Values, accounts []string) (Request, problem.List) {
	get := func(k string) string { return strings.TrimSpace(v.Get(k)) }
	f := Filter{
		State: get(ParamState), Account: get(ParamAccount),
		DueFrom: get(ParamDueFrom), DueTo: get(ParamDueTo),
		PaidFrom: get(ParamPaidFrom), PaidTo: get(ParamPaidTo),
		NIS: get(ParamNIS), Class: get(ParamClass), Search: strings.Join(strings.Fields(v.Get(ParamSearch)), " "),
		Notes: get(ParamNotes), Name: strings.Join(strings.Fields(v.Get(ParamName)), " "), Ref: get(ParamRef), Sort: get(ParamSort),
	}
	f.Limit, _ = strconv.Atoi(get(ParamLimit))
	if !slices.Contains(PageSizes, f.Limit) {
		f.Limit = DefaultPageSize
	}
	f.Offset = Offset(v, f.Limit)
	if _, ok := ParseSort(f.Sort); !ok {
		f.Sort = ""
	}

	var probs problem.List
	srt, _ := ParseSort(f.Sort)
	q := ledger.BillsQuery{Account: f.Account, Notes: f.Notes, Name: f.Name, Ref: f.Ref, NIS: f.NIS, Class: f.Class, Search: f.Search,
		Sort: sortColumns[srt.Key], Desc: srt.Desc, Offset: f.Offset, Limit: f.Limit}
	if f.State == "" {
		f.State = DefaultState
	}
	if tab, ok := tabs[f.State]; ok {
		q.Tab = tab
	} else {
		probs.Add(ParamState, "form.invalid_choice")
	}
	if f.Account != "" && !slices.Contains(accounts, f.Account) {
		probs.Add(ParamAccount, "form.invalid_choice")
	}
	probs = append(probs, dateRange(&f.DueFrom, &f.DueTo, ParamDueFrom, ParamDueTo, "bills.err.due_order", &q.DueFrom, &q.DueTo)...)
	probs = append(probs, dateRange(&f.PaidFrom, &f.PaidTo, ParamPaidFrom, ParamPaidTo, "bills.err.paid_order", &q.PaidFrom, &q.PaidTo)...)
	if f.NIS != "" {
		students.CheckNIS(&probs, ParamNIS, f.NIS)
	}
	if n := len([]rune(f.Class)); n > students.MaxClassLen {
		probs.Add(ParamClass, "form.too_long", students.MaxClassLen)
	}
	if n := len([]rune(f.Notes)); n > MaxNotesLen {
		probs.Add(ParamNotes, "form.too_long", MaxNotesLen)
	}
	// Searching is lenient about the charset: references recorded by banks are not ours.
	if n := len([]rune(f.Ref)); n > MaxRefSearchLen {
		probs.Add(ParamRef, "form.too_long", MaxRefSearchLen)
	}
	if n := len([]rune(f.Search)); n > MaxSearchLen {
		probs.Add(ParamSearch, "form.too_long", MaxSearchLen)
	}
	if n := len([]rune(f.Name)); n > MaxNameLen {
		probs.Add(ParamName, "form.too_long", MaxNameLen)
	}
	return Request{Filter: f, Query: q}, probs
}

// dateRange parses a from/to pair of days (i18n.ParseDay: a date input's value or a day
// typed by hand); a day that is not a date, or a range that ends before it starts, is a
// Problem. A day that reads is rewritten in DateLayout, so links and the date inputs carry
// what was understood.
func dateRange(from, to *string, fromField, toField, orderKey string, dFrom, dTo *time.Time) problem.List {
	var probs problem.List
	okFrom := readDay(from, fromField, dFrom, &probs)
	okTo := readDay(to, toField, dTo, &probs)
	if okFrom && okTo && dTo.Before(*dFrom) {
		probs.Add(toField, orderKey)
	}
	return probs
}

// readDay is one side of dateRange; empty is no day.
func readDay(s *string, field string, d *time.Time, probs *problem.List) bool {
	if *s == "" {
		return false
	}
	t, err := i18n.ParseDay(*s)
	if err != nil {
		probs.Add(field, "form.invalid_date")
		return false
	}
	*d, *s = t, t.Format(DateLayout)
	return true
}

// Values encodes the filter as URL parameters, leaving out defaults so links stay short.
// The state is always written: it is what the tabs are.
func (f Filter) Values() url.Values {
	v := url.Values{}
	set := func(k, val string) {
		if val != "" {
			v.Set(k, val)
		}
	}
	set(ParamState, cmpOr(f.State, DefaultState))
	set(ParamAccount, f.Account)
	set(ParamDueFrom, f.DueFrom)
	set(ParamDueTo, f.DueTo)
	set(ParamPaidFrom, f.PaidFrom)
	set(ParamPaidTo, f.PaidTo)
	set(ParamNIS, f.NIS)
	set(ParamClass, f.Class)
	set(ParamSearch, f.Search)
	set(ParamNotes, f.Notes)
	set(ParamName, f.Name)
	set(ParamRef, f.Ref)
	set(ParamSort, f.Sort)
	if f.Offset > 0 {
		v.Set(ParamOffset, strconv.Itoa(f.Offset))
	}
	if f.Limit != 0 && f.Limit != DefaultPageSize {
		v.Set(ParamLimit, strconv.Itoa(f.Limit))
	}
	return v
}

// Narrowed reports whether f selects some bills rather than a whole tab: a student, a
// class, a search, an item's name, an account code, notes, a reference or a range of
// days. A change of many bills at once is offered only on a narrowed list.
func (f Filter) Narrowed() bool {
	return f.Account != "" || f.DueFrom != "" || f.DueTo != "" || f.PaidFrom != "" || f.PaidTo != "" || f.NIS != "" ||
		f.Class != "" || f.Search != "" || f.Notes != "" || f.Name != "" || f.Ref != ""
}

// URL is the address of the browser at path showing f.
func (f Filter) URL(path string) string {
	return path + "?" + f.Values().Encode()
}

// WithState is f on another tab, from its first page.
func (f Filter) WithState(state string) Filter {
	f.State, f.Offset = state, 0
	return f
}

// WithSort is f sorted otherwise, from its first page (the order is of the whole result).
func (f Filter) WithSort(sort string) Filter {
	f.Sort, f.Offset = sort, 0
	return f
}

// Offset is the first row of a paged list of limit rows per page that the parameters ask
// for: ?page= (1-based, the pager's jump form) wins over ?offset=; the result is clamped
// to 0..MaxOffset whatever the URL says.
func Offset(v url.Values, limit int) int {
	n, _ := strconv.Atoi(strings.TrimSpace(v.Get(ParamOffset)))
	if page, err := strconv.Atoi(strings.TrimSpace(v.Get(ParamPage))); err == nil && limit > 0 {
		n = min(max(page-1, 0), MaxOffset/limit) * limit
	}
	return min(max(n, 0), MaxOffset)
}

// WithOffset is f from another row.
func (f Filter) WithOffset(offset int) Filter {
	f.Offset = min(max(offset, 0), MaxOffset)
	return f
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
