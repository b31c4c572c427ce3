package counter

import (
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
