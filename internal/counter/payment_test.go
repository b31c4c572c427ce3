package counter

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/problem"
)

func TestOutstanding(t *testing.T) {
	t.Parallel()
	notActive := bill("later", "1", "2026-12-20", "2027-01-31")
	notActive.Active = day("2026-12-01")
	activeToday := bill("today", "1", "2026-12-20", "2027-01-31")
	activeToday.Active = day("2026-11-22")
	bs := []billing.Bill{
		bill("dec", "1", "2026-12-10", "2026-12-31"),
		paid(bill("oct", "1", "2026-10-10", "2026-12-31"), today22, 110_000, "R"),
		bill("late", "1", "2026-11-10", "2026-12-31"),
		bill("gone", "1", "2026-09-10", "2026-09-30"),
		notActive,
		activeToday,
	}
	lines := Outstanding(bs, today22)
	type row struct {
		id      string
		payable bool
		reason  string
		late    bool
		penalty int64
		due     int64
	}
	var got []row
	for _, l := range lines {
		got = append(got, row{l.Bill.ComponentID, l.Payable, l.Reason, l.Late, l.Penalty, l.Due})
	}
	want := []row{
		{"gone", false, ReasonExpired, false, 0, 0},
		{"late", true, "", true, 10_000, 110_000},
		{"dec", true, "", false, 0, 100_000},
		{"later", false, ReasonNotActive, false, 0, 100_000},
		{"today", true, "", false, 0, 100_000},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Outstanding:\n got %+v\nwant %+v", got, want)
	}
	if total := PayableTotal(lines); total != 310_000 {
		t.Fatalf("PayableTotal = %d, want 310000", total)
	}
}

func TestSelect(t *testing.T) {
	t.Parallel()
	fresh := []billing.Bill{
		bill("dec", "1", "2026-12-10", "2026-12-31"),
		bill("late", "1", "2026-11-10", "2026-12-31"),
		bill("gone", "1", "2026-09-10", "2026-09-30"),
		paid(bill("oct", "1", "2026-10-10", "2026-12-31"), today22, 110_000, "KW-9"),
	}
	tests := []struct {
		name     string
		ids      []string
		today    time.Time
		total    int64
		penalty  int64
		order    []string
		problems []string
	}{
		{name: "one on time", ids: []string{"dec"}, today: today22, total: 100_000, order: []string{"dec"}},
		{name: "late one includes the penalty as of today", ids: []string{"late"}, today: today22, total: 110_000, penalty: 10_000, order: []string{"late"}},
		{name: "the day it was due there was no penalty", ids: []string{"late"}, today: time.Date(2026, 11, 10, 23, 0, 0, 0, jakarta), total: 100_000, order: []string{"late"}},
		{name: "both, earliest due first, repeats ignored", ids: []string{"dec", "late", "dec", " "}, today: today22, total: 210_000, penalty: 10_000, order: []string{"late", "dec"}},
		{name: "nothing chosen", ids: nil, today: today22, problems: []string{"payments.err.none"}},
		{name: "expired cannot be chosen", ids: []string{"dec", "gone"}, today: today22, problems: []string{"payments.err.expired[SPP gone]"}},
		{name: "paid meanwhile", ids: []string{"oct"}, today: today22, problems: []string{"payments.err.paid[SPP oct KW-9]"}},
		{name: "unknown component", ids: []string{"nope"}, today: today22, problems: []string{"payments.err.gone"}},
		{name: "expires the day after it was shown", ids: []string{"dec"}, today: time.Date(2027, 1, 1, 8, 0, 0, 0, jakarta), problems: []string{"payments.err.expired[SPP dec]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sel, probs := Select(fresh, tt.ids, tt.today)
			var got []string
			for _, p := range probs {
				s := p.Key
				if len(p.Args) > 0 {
					s += fmt.Sprint(p.Args)
				}
				got = append(got, s)
			}
			if !reflect.DeepEqual(got, tt.problems) {
				t.Fatalf("problems = %v, want %v", got, tt.problems)
			}
			if tt.problems != nil {
				if sel.Total != 0 || len(sel.IDs) != 0 {
					t.Fatalf("a refused selection still carries %+v", sel)
				}
				return
			}
			if sel.Total != tt.total || sel.Penalty != tt.penalty || sel.Amount+sel.Penalty != sel.Total {
				t.Errorf("total %d penalty %d amount %d; want total %d penalty %d", sel.Total, sel.Penalty, sel.Amount, tt.total, tt.penalty)
			}
			if !reflect.DeepEqual(sel.IDs, tt.order) {
				t.Errorf("ids %v, want %v", sel.IDs, tt.order)
			}
		})
	}
}

func TestRefUsed(t *testing.T) {
	t.Parallel()
	fresh := []billing.Bill{
		paid(bill("a", "1", "2026-10-10", "2026-12-31"), today22, 100_000, "KW-1"),
		bill("b", "1", "2026-12-10", "2026-12-31"),
	}
	for ref, want := range map[string]bool{"KW-1": true, "kw-1": true, "KW-2": false} {
		if got := RefUsed(fresh, ref); got != want {
			t.Errorf("RefUsed(%q) = %v", ref, got)
		}
	}
}

func TestPayProblems(t *testing.T) {
	t.Parallel()
	fresh := []billing.Bill{bill("a", "1", "2026-12-10", "2026-12-31"), bill("b", "1", "2026-12-10", "2026-12-31")}
	ids := []string{"a", "b"}
	refusal := func(items ...billing.ItemError) error {
		return fmt.Errorf("pay: %w", &billing.APIError{StatusCode: 400, Status: "Bad Request", Items: items})
	}
	tests := []struct {
		name string
		err  error
		ok   bool
		want []string
	}{
		{"already paid", refusal(billing.ItemError{Index: 1, Field: "bill_component_list", Message: "already paid"}), true, []string{"payments.err.paid_meanwhile[SPP b]"}},
		{"expired and not active", refusal(
			billing.ItemError{Index: 0, Field: "bill_component_list", Message: "expired, cannot be paid"},
			billing.ItemError{Index: 1, Field: "bill_component_list", Message: "not active yet"}), true,
			[]string{"payments.err.expired[SPP a]", "payments.err.not_active[SPP b]"}},
		{"unknown wording", refusal(billing.ItemError{Index: 0, Field: "bill_component_list", Message: "component does not belong to bill_key 1"}), false, nil},
		{"index out of range", refusal(billing.ItemError{Index: 5, Field: "bill_component_list", Message: "already paid"}), false, nil},
		{"no items", &billing.APIError{StatusCode: 400, StatusDesc: "biller_ref_number: required"}, false, nil},
		{"not a refusal", &billing.APIError{StatusCode: 503}, false, nil},
		{"transport", billing.ErrTimeout, false, nil},
	}
	for _, tt := range tests {
		probs, ok := PayProblems(tt.err, ids, fresh)
		var got []string
		for _, p := range probs {
			got = append(got, p.Key+fmt.Sprint(p.Args))
		}
		if ok != tt.ok || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %v %v, want %v %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

func TestBuildReceipt(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 22, 2, 30, 0, 0, time.UTC)
	late := paid(bill("late", "1", "2026-11-10", "2026-12-31"), at, 110_000, "KW-7")
	late.StudentName = "Siti Aminah"
	onTime := paid(bill("dec", "1", "2026-12-10", "2026-12-31"), at, 100_000, "KW-7")
	other := paid(bill("oct", "1", "2026-10-10", "2026-12-31"), at.AddDate(0, -1, 0), 100_000, "KW-1")
	r, ok := BuildReceipt("1", "KW-7", []billing.Bill{onTime, other, late})
	if !ok {
		t.Fatal("no receipt")
	}
	if r.StudentName != "Siti Aminah" || !r.PaidAt.Equal(at) || len(r.Lines) != 2 || r.Lines[0].Bill.ComponentID != "late" {
		t.Fatalf("receipt = %+v", r)
	}
	if r.Total != 210_000 || r.Penalty != 10_000 || r.Amount != 200_000 || r.Lines[0].Penalty != 10_000 || r.Lines[1].Penalty != 0 {
		t.Fatalf("receipt sums: total %d penalty %d amount %d", r.Total, r.Penalty, r.Amount)
	}
	if _, ok := BuildReceipt("1", "KW-404", []billing.Bill{onTime}); ok {
		t.Fatal("a receipt for an unknown ref")
	}
	if _, ok := BuildReceipt("2", "KW-7", []billing.Bill{onTime}); ok {
		t.Fatal("a receipt for another student's payment")
	}
}

func TestParseRef(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want, problem string
	}{
		{"  KW-2026/0001 ", "KW-2026/0001", ""},
		{"TRX.20261122_01", "TRX.20261122_01", ""},
		{"", "", "form.required"},
		{"   ", "", "form.required"},
		{"KW 0001", "KW 0001", "payments.err.ref_chars"},
		{"-001", "-001", "payments.err.ref_chars"},
		{"<script>", "<script>", "payments.err.ref_chars"},
		{"KW#1", "KW#1", "payments.err.ref_chars"},
		{strings.Repeat("A", MaxRefLen), strings.Repeat("A", MaxRefLen), ""},
		{strings.Repeat("A", MaxRefLen+1), strings.Repeat("A", MaxRefLen+1), "form.too_long"},
	}
	for _, tt := range tests {
		var l problem.List
		got := ParseRef(&l, tt.in)
		key := ""
		if p, ok := l.Of(FieldRef); ok {
			key = p.Key
		}
		if got != tt.want || key != tt.problem {
			t.Errorf("ParseRef(%q) = %q, %q; want %q, %q", tt.in, got, key, tt.want, tt.problem)
		}
	}
}
