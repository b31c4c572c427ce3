package component

import (
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
)

var jakarta = time.FixedZone("WIB", 7*60*60)

// today22 is 22 Nov 2026 in Jakarta; at 06:00 WIB it is still 21 Nov in UTC, which is what
// the day rule must not be fooled by.
var today22 = time.Date(2026, 11, 22, 6, 0, 0, 0, jakarta)

func day(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic("bad test day " + s)
	}
	return t
}

// bill is a component of 100.000 with a penalty of 10.000, due and expiring on the days given.
func bill(id, nis, due, expiry string) billing.Bill {
	return billing.Bill{ComponentID: id, NIS: nis, Name: "SPP " + id, Amount: 100_000, Penalty: 10_000,
		Due: day(due), Expiry: day(expiry), State: billing.StateProvisioned}
}

func paid(b billing.Bill, at time.Time, amount int64, ref string) billing.Bill {
	b.State, b.PaidAt, b.AmountPaid, b.RefNumber = billing.StatePaid, at, amount, ref
	return b
}

func TestStatusAndPrices(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		b       billing.Bill
		status  Status
		penalty int64
		due     int64
	}{
		{"due in the future", bill("a", "1", "2026-11-30", "2026-12-31"), StatusProvisioned, 0, 100_000},
		{"due today costs the amount", bill("a", "1", "2026-11-22", "2026-12-31"), StatusProvisioned, 0, 100_000},
		{"due yesterday is overdue with the penalty", bill("a", "1", "2026-11-21", "2026-12-31"), StatusOverdue, 10_000, 110_000},
		{"expiring today is still payable, late", bill("a", "1", "2026-11-01", "2026-11-22"), StatusOverdue, 10_000, 110_000},
		{"expired yesterday by the day rule", bill("a", "1", "2026-11-01", "2026-11-21"), StatusExpired, 0, 0},
		{"expired by the service", func() billing.Bill {
			b := bill("a", "1", "2026-11-30", "2026-12-31")
			b.State = billing.StateExpired
			return b
		}(), StatusExpired, 0, 0},
		{"paid", paid(bill("a", "1", "2026-11-01", "2026-12-31"), today22, 110_000, "R"), StatusPaid, 0, 0},
	}
	for _, tt := range tests {
		on := On(tt.b, today22)
		if on.Status != tt.status {
			t.Errorf("%s: status %s, want %s", tt.name, on.Status, tt.status)
		}
		if on.Penalty != tt.penalty {
			t.Errorf("%s: penalty today %d, want %d", tt.name, on.Penalty, tt.penalty)
		}
		if on.Price != tt.due {
			t.Errorf("%s: price today %d, want %d", tt.name, on.Price, tt.due)
		}
	}
}

// On is what every page shows of a component today: one call, every fact.
func TestOn(t *testing.T) {
	t.Parallel()
	active := func(b billing.Bill, d string) billing.Bill { b.Active = day(d); return b }
	tests := []struct {
		name string
		b    billing.Bill
		want Today
	}{
		{"not yet due", bill("a", "1", "2026-11-30", "2026-12-31"),
			Today{Status: StatusProvisioned, DaysLate: -8, Price: 100_000}},
		{"due today", bill("a", "1", "2026-11-22", "2026-12-31"),
			Today{Status: StatusProvisioned, DueToday: true, Price: 100_000}},
		{"late", bill("a", "1", "2026-11-20", "2026-12-31"),
			Today{Status: StatusOverdue, DaysLate: 2, Penalty: 10_000, Price: 110_000}},
		{"expired", bill("a", "1", "2026-11-01", "2026-11-21"),
			Today{Status: StatusExpired, DaysLate: 21}},
		{"paid", paid(bill("a", "1", "2026-11-01", "2026-12-31"), today22, 110_000, "R"),
			Today{Status: StatusPaid, DaysLate: 21}},
		{"not active yet", active(bill("a", "1", "2026-12-20", "2027-01-31"), "2026-12-01"),
			Today{Status: StatusProvisioned, NotYetActive: true, DaysLate: -28, Price: 100_000}},
		{"active today", active(bill("a", "1", "2026-12-20", "2027-01-31"), "2026-11-22"),
			Today{Status: StatusProvisioned, DaysLate: -28, Price: 100_000}},
	}
	for _, tt := range tests {
		if got := On(tt.b, today22); got != tt.want {
			t.Errorf("%s: On = %+v, want %+v", tt.name, got, tt.want)
		}
	}
	if On(active(bill("a", "1", "2026-12-20", "2027-01-31"), "2026-12-01"), today22).Payable() ||
		!On(bill("a", "1", "2026-11-20", "2026-12-31"), today22).Payable() ||
		On(bill("a", "1", "2026-11-01", "2026-11-21"), today22).Payable() {
		t.Error("Payable: only unpaid, unexpired, active components")
	}
}

// The penalty part of a payment is what was paid above the amount (the receipt's line).
func TestPenaltyPaid(t *testing.T) {
	t.Parallel()
	if got := PenaltyPaid(paid(bill("late", "4", "2026-10-10", "2026-12-31"), today22, 110_000, "R1")); got != 10_000 {
		t.Errorf("penalty part of a late payment = %d", got)
	}
	if got := PenaltyPaid(paid(bill("on-time", "5", "2026-12-10", "2026-12-31"), today22, 100_000, "R2")); got != 0 {
		t.Errorf("penalty part of an on-time payment = %d", got)
	}
}
