package billlist

import (
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
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

func TestToggleAndParseSort(t *testing.T) {
	t.Parallel()
	tests := []struct{ current, key, want string }{
		{"", "due", "-due"}, // the default is by due date: its header flips it
		{"", "amount", "amount"},
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
		want := in
		if in == "" {
			want = "due" // the default
		}
		if s, got := ParseSort(in); got != ok || ok && s.String() != want {
			t.Errorf("ParseSort(%q) = %+v, %v", in, s, got)
		}
	}
}
