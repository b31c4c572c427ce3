package billlist

import (
	"reflect"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/component"
)

var jakarta = time.FixedZone("WIB", 7*60*60)

// today22 is 22 Nov 2026 in Jakarta; at 06:00 WIB it is still 21 Nov in UTC, which is what
// the day rule must not be fooled by.
var today22 = time.Date(2026, 11, 22, 6, 0, 0, 0, jakarta)

// bill is a component of 100.000 with a penalty of 10.000, due and expiring on the days given.
func bill(id, nis, due, expiry string) billing.Bill {
	return billing.Bill{ComponentID: id, NIS: nis, Name: "SPP " + id, Amount: 100_000, Penalty: 10_000,
		Due: day(due), Expiry: day(expiry), State: billing.StateProvisioned}
}

func paid(b billing.Bill, at time.Time, amount int64, ref string) billing.Bill {
	b.State, b.PaidAt, b.AmountPaid, b.RefNumber = billing.StatePaid, at, amount, ref
	return b
}

func TestTotal(t *testing.T) {
	t.Parallel()
	bs := []billing.Bill{
		bill("future", "1", "2026-11-30", "2026-12-31"),
		bill("late", "2", "2026-11-10", "2026-12-31"),
		bill("expired", "3", "2026-10-10", "2026-10-31"),
		paid(bill("paid-late", "4", "2026-10-10", "2026-12-31"), today22, 110_000, "R1"),
		paid(bill("paid-on-time", "5", "2026-12-10", "2026-12-31"), today22, 100_000, "R2"),
	}
	got := Total(bs, today22)
	want := Totals{Count: 5, Amount: 500_000, PenaltyToday: 10_000, DueToday: 210_000, Paid: 210_000}
	if got != want {
		t.Fatalf("Total = %+v, want %+v", got, want)
	}
	if got := Total(nil, today22); got != (Totals{}) {
		t.Fatalf("Total(nil) = %+v", got)
	}
	if got := component.PenaltyPaid(bs[3]); got != 10_000 {
		t.Errorf("penalty part of a late payment = %d", got)
	}
	if got := component.PenaltyPaid(bs[4]); got != 0 {
		t.Errorf("penalty part of an on-time payment = %d", got)
	}
}

func TestSortBills(t *testing.T) {
	t.Parallel()
	at := func(d int) time.Time { return time.Date(2026, 11, d, 3, 0, 0, 0, time.UTC) }
	withAmount := func(b billing.Bill, a int64) billing.Bill { b.Amount = a; return b }
	// Service order: newest first; ids say where each ends up.
	page := []billing.Bill{
		withAmount(bill("n1", "10", "2026-11-15", "2026-12-31"), 300),
		paid(withAmount(bill("n2", "9", "2026-11-01", "2026-12-31"), 100), at(5), 100, "A"),
		withAmount(bill("n3", "010", "2026-11-15", "2026-12-31"), 200),
		paid(withAmount(bill("n4", "A1", "2026-12-01", "2026-12-31"), 100), at(2), 100, "B"),
	}
	ids := func(bs []billing.Bill) []string {
		var out []string
		for _, b := range bs {
			out = append(out, b.ComponentID)
		}
		return out
	}
	tests := []struct {
		sort string
		want []string
	}{
		{"", []string{"n1", "n2", "n3", "n4"}},
		{"bogus", []string{"n1", "n2", "n3", "n4"}},
		{"due", []string{"n2", "n1", "n3", "n4"}},
		{"-due", []string{"n4", "n1", "n3", "n2"}},
		{"amount", []string{"n2", "n4", "n3", "n1"}},
		{"-amount", []string{"n1", "n3", "n2", "n4"}},
		{"nis", []string{"n2", "n1", "n3", "n4"}}, // 9 < 10 = 010 (ties keep the service's order) < A1
		{"-nis", []string{"n4", "n1", "n3", "n2"}},
		{"paid", []string{"n4", "n2", "n1", "n3"}}, // unpaid last
		{"-paid", []string{"n2", "n4", "n1", "n3"}},
	}
	for _, tt := range tests {
		bs := append([]billing.Bill(nil), page...)
		SortBills(bs, tt.sort)
		if got := ids(bs); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("sort %q: %v, want %v", tt.sort, got, tt.want)
		}
	}
}

func TestToggleAndParseSort(t *testing.T) {
	t.Parallel()
	tests := []struct{ current, key, want string }{
		{"", "due", "due"},
		{"due", "due", "-due"},
		{"-due", "due", "due"},
		{"-due", "amount", "amount"},
	}
	for _, tt := range tests {
		if got := Toggle(tt.current, tt.key); got != tt.want {
			t.Errorf("Toggle(%q, %q) = %q, want %q", tt.current, tt.key, got, tt.want)
		}
	}
	for in, ok := range map[string]bool{"": true, "due": true, "-paid": true, "nis": true, "-": false, "--due": false, "name": false} {
		if s, got := ParseSort(in); got != ok || ok && s.String() != in {
			t.Errorf("ParseSort(%q) = %+v, %v", in, s, got)
		}
	}
}
