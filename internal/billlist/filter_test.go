package billlist

import (
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/ledger"
)

var accounts = []string{"SPP", "BCA", "MANDIRI"}

func day(s string) time.Time {
	t, err := time.Parse(DateLayout, s)
	if err != nil {
		panic("bad test day " + s)
	}
	return t
}

func TestParseFilter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		query   string
		want    ledger.BillsQuery
		limit   int      // Filter.Limit when not 0
		sort    string   // Filter.Sort
		problem []string // "field:key" of the expected problems, in order
	}{
		{name: "empty is the outstanding tab, first page of 50", query: "",
			want: ledger.BillsQuery{Tab: ledger.TabOutstanding, Limit: 50}},
		{name: "paid tab", query: "state=paid",
			want: ledger.BillsQuery{Tab: ledger.TabPaid, Limit: 50}},
		{name: "expired tab", query: "state=expired",
			want: ledger.BillsQuery{Tab: ledger.TabExpired, Limit: 50}},
		{name: "all tab", query: "state=all",
			want: ledger.BillsQuery{Tab: ledger.TabAll, Limit: 50}},
		{name: "unknown state", query: "state=deleted", problem: []string{"state:form.invalid_choice"}},
		{name: "account", query: "state=all&account=BCA",
			want: ledger.BillsQuery{Tab: ledger.TabAll, Account: "BCA", Limit: 50}},
		{name: "unknown account", query: "account=XYZ", problem: []string{"account:form.invalid_choice"}},
		{name: "due range", query: "due_from=2026-11-01&due_to=2026-11-30",
			want: ledger.BillsQuery{Tab: ledger.TabOutstanding, DueFrom: day("2026-11-01"), DueTo: day("2026-11-30"), Limit: 50}},
		{name: "due range of one day", query: "due_from=2026-11-10&due_to=2026-11-10",
			want: ledger.BillsQuery{Tab: ledger.TabOutstanding, DueFrom: day("2026-11-10"), DueTo: day("2026-11-10"), Limit: 50}},
		{name: "open-ended due range", query: "due_to=2026-11-30",
			want: ledger.BillsQuery{Tab: ledger.TabOutstanding, DueTo: day("2026-11-30"), Limit: 50}},
		{name: "paid range", query: "state=paid&paid_from=2026-10-01&paid_to=2026-10-31",
			want: ledger.BillsQuery{Tab: ledger.TabPaid, PaidFrom: day("2026-10-01"), PaidTo: day("2026-10-31"), Limit: 50}},
		{name: "bad due date", query: "due_from=2026-13-01", problem: []string{"due_from:form.invalid_date"}},
		{name: "due date typed day first", query: "due_to=01/11/2026",
			want: ledger.BillsQuery{Tab: ledger.TabOutstanding, DueTo: day("2026-11-01"), Limit: 50}},
		{name: "bad paid dates", query: "paid_from=kemarin&paid_to=2026-02-30",
			problem: []string{"paid_from:form.invalid_date", "paid_to:form.invalid_date"}},
		{name: "due from after to", query: "due_from=2026-12-01&due_to=2026-11-01", problem: []string{"due_to:bills.err.due_order"}},
		{name: "paid from after to", query: "paid_from=2026-12-01&paid_to=2026-11-01", problem: []string{"paid_to:bills.err.paid_order"}},
		{name: "one student", query: "nis=+2024001+",
			want: ledger.BillsQuery{Tab: ledger.TabOutstanding, NIS: "2024001", Limit: 50}},
		{name: "search by name or NIS, spaces folded", query: "q=+siti++aminah+",
			want: ledger.BillsQuery{Tab: ledger.TabOutstanding, Search: "siti aminah", Limit: 50}},
		{name: "search too long", query: "q=" + strings.Repeat("x", MaxSearchLen+1), problem: []string{"q:form.too_long"}},
		{name: "bad nis", query: "nis=20%2F24", problem: []string{"nis:students.err.nis"}},
		{name: "nis too long", query: "nis=" + strings.Repeat("1", 33), problem: []string{"nis:students.err.nis"}},
		{name: "notes and ref", query: "state=all&notes=Kelas+7A&ref=TRX-001",
			want: ledger.BillsQuery{Tab: ledger.TabAll, Notes: "Kelas 7A", Ref: "TRX-001", Limit: 50}},
		{name: "class", query: "class=+Kelas+7A+&account=SPP",
			want: ledger.BillsQuery{Tab: ledger.TabOutstanding, Class: "Kelas 7A", Account: "SPP", Limit: 50}},
		{name: "class too long", query: "class=" + strings.Repeat("x", 101), problem: []string{"class:form.too_long"}},
		{name: "notes too long", query: "notes=" + strings.Repeat("x", MaxNotesLen+1), problem: []string{"notes:form.too_long"}},
		{name: "ref too long", query: "ref=" + strings.Repeat("x", MaxRefSearchLen+1), problem: []string{"ref:form.too_long"}},
		{name: "page size 25 at offset 50", query: "limit=25&offset=50",
			want: ledger.BillsQuery{Tab: ledger.TabOutstanding, Offset: 50, Limit: 25}},
		{name: "page size 200", query: "limit=200",
			want: ledger.BillsQuery{Tab: ledger.TabOutstanding, Limit: 200}},
		{name: "page size not offered falls back", query: "limit=1000",
			want: ledger.BillsQuery{Tab: ledger.TabOutstanding, Limit: 50}, limit: DefaultPageSize},
		{name: "garbage paging falls back", query: "limit=lots&offset=-5",
			want: ledger.BillsQuery{Tab: ledger.TabOutstanding, Limit: 50}},
		{name: "sort kept", query: "sort=-due",
			want: ledger.BillsQuery{Tab: ledger.TabOutstanding, Sort: ledger.SortDue, Desc: true, Limit: 50}, sort: "-due"},
		{name: "sort by NIS", query: "sort=nis",
			want: ledger.BillsQuery{Tab: ledger.TabOutstanding, Sort: ledger.SortNIS, Limit: 50}, sort: "nis"},
		{name: "unknown sort dropped", query: "sort=name",
			want: ledger.BillsQuery{Tab: ledger.TabOutstanding, Limit: 50}, sort: ""},
		{name: "several problems at once", query: "state=x&due_from=x&account=x",
			problem: []string{"state:form.invalid_choice", "account:form.invalid_choice", "due_from:form.invalid_date"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := url.ParseQuery(tt.query)
			if err != nil {
				t.Fatal(err)
			}
			req, probs := ParseFilter(v, accounts)
			var got []string
			for _, p := range probs {
				got = append(got, p.Field+":"+p.Key)
			}
			if !reflect.DeepEqual(got, tt.problem) {
				t.Fatalf("problems = %v, want %v", got, tt.problem)
			}
			if tt.problem != nil {
				return
			}
			if _, ok := ParseSort(v.Get(ParamSort)); v.Get(ParamSort) == "" || !ok {
				tt.want.Sort = ledger.SortDue // the default order (an unknown sort is dropped to it)
			}
			if !reflect.DeepEqual(req.Query, tt.want) {
				t.Errorf("query = %+v\nwant    %+v", req.Query, tt.want)
			}
			if tt.limit != 0 && req.Filter.Limit != tt.limit {
				t.Errorf("limit = %d, want %d", req.Filter.Limit, tt.limit)
			}
			if req.Filter.Sort != tt.sort {
				t.Errorf("sort = %q, want %q", req.Filter.Sort, tt.sort)
			}
		})
	}
}

// TestFilterRewritesTypedDays: a day typed by hand travels on as a date input sends it, so
// the date inputs and the page links show what was understood.
func TestFilterRewritesTypedDays(t *testing.T) {
	t.Parallel()
	v := url.Values{"due_from": {"1/11/2026"}, "due_to": {"30 Nov 2026"}, "paid_from": {"2026-10-01"}}
	req, probs := ParseFilter(v, accounts)
	if len(probs) != 0 {
		t.Fatalf("problems = %v", probs)
	}
	if f := req.Filter; f.DueFrom != "2026-11-01" || f.DueTo != "2026-11-30" || f.PaidFrom != "2026-10-01" || f.PaidTo != "" {
		t.Fatalf("filter = %+v", f)
	}
}

// TestFilterKeepsTypedValues: a form with a mistake shows exactly what was sent.
func TestFilterKeepsTypedValues(t *testing.T) {
	t.Parallel()
	v := url.Values{"due_from": {"2026-12-01"}, "due_to": {"2026-11-01"}, "nis": {"123"}, "notes": {"x"}}
	req, probs := ParseFilter(v, accounts)
	if len(probs) != 1 {
		t.Fatalf("problems = %v", probs)
	}
	f := req.Filter
	if f.DueFrom != "2026-12-01" || f.DueTo != "2026-11-01" || f.NIS != "123" || f.Notes != "x" {
		t.Fatalf("filter = %+v", f)
	}
}

func TestFilterURLRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		query string
		want  string
	}{
		{"defaults are left out but the state is written", "", "state=provisioned"},
		{"everything", "state=paid&account=SPP&due_from=2026-01-01&due_to=2026-02-01&paid_from=2026-01-05&paid_to=2026-01-06&nis=7&notes=n&name=Iuran++Pramuka&ref=R1&sort=-paid&offset=50&limit=25",
			"account=SPP&due_from=2026-01-01&due_to=2026-02-01&limit=25&name=Iuran+Pramuka&nis=7&notes=n&offset=50&paid_from=2026-01-05&paid_to=2026-01-06&ref=R1&sort=-paid&state=paid"},
	}
	for _, tt := range tests {
		v, _ := url.ParseQuery(tt.query)
		req, probs := ParseFilter(v, accounts)
		if probs != nil {
			t.Fatalf("%s: %v", tt.name, probs)
		}
		if got := req.Filter.Values().Encode(); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
		again, _ := ParseFilter(req.Filter.Values(), accounts)
		if !reflect.DeepEqual(again, req) {
			t.Errorf("%s: round trip changed the request: %+v vs %+v", tt.name, again, req)
		}
	}
	f := Filter{State: StatePaid, Offset: 100, Limit: 25, Sort: "due"}
	if got := f.WithState(StateAll).URL("/bills"); got != "/bills?limit=25&sort=due&state=all" {
		t.Errorf("WithState: %s", got)
	}
	if got := f.WithOffset(125).Values().Get("offset"); got != "125" {
		t.Errorf("WithOffset: %s", got)
	}
	if got := f.WithSort("-amount").Values().Get("offset"); got != "" {
		t.Errorf("WithSort starts from the first page (the order is of the whole result): offset %s", got)
	}
}

// A bulk change is offered on a narrowed list only: any one filter narrows it; the tab,
// the order and the page do not.
func TestFilterNarrowed(t *testing.T) {
	t.Parallel()
	for query, want := range map[string]bool{
		"": false, "state=expired&sort=-due&limit=200&offset=50": false,
		"class=Kelas+8A": true, "name=Pramuka": true, "account=SPP": true, "due_from=2026-12-15": true,
		"q=budi": true, "nis=7": true, "notes=x": true, "ref=R1": true, "paid_to=2026-01-01": true,
	} {
		v, _ := url.ParseQuery(query)
		req, _ := ParseFilter(v, accounts)
		if got := req.Filter.Narrowed(); got != want {
			t.Errorf("%q: narrowed %v, want %v", query, got, want)
		}
	}
	if req, probs := ParseFilter(url.Values{"name": {strings.Repeat("x", MaxNameLen+1)}}, accounts); !probs.Has(ParamName) || req.Query.Name == "" {
		t.Errorf("a name too long: %v", probs)
	}
}
