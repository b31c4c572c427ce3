package billing

import (
	"testing"
	"time"
)

func TestDayIn(t *testing.T) {
	t.Parallel()
	jakarta := mustZone(t, "Asia/Jakarta")
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	tests := []struct {
		t    time.Time
		loc  *time.Location
		want time.Time
	}{
		// 23:30 UTC on 30 Nov is already 1 Dec in Jakarta (UTC+7).
		{time.Date(2026, 11, 30, 23, 30, 0, 0, time.UTC), jakarta, day(2026, 12, 1)},
		{time.Date(2026, 11, 30, 16, 59, 0, 0, time.UTC), jakarta, day(2026, 11, 30)},
		{time.Date(2026, 11, 30, 17, 0, 0, 0, time.UTC), jakarta, day(2026, 12, 1)},
		{time.Date(2026, 12, 31, 20, 0, 0, 0, time.UTC), jakarta, day(2027, 1, 1)},
		// Already in the zone: its own date.
		{time.Date(2026, 12, 1, 0, 30, 0, 0, jakarta), jakarta, day(2026, 12, 1)},
		// A component timestamp read as its UTC date, wherever it was parsed.
		{time.Date(2026, 12, 1, 0, 30, 0, 0, jakarta), time.UTC, day(2026, 11, 30)},
		{day(2026, 12, 10), time.UTC, day(2026, 12, 10)},
		// No zone is UTC.
		{time.Date(2026, 11, 30, 23, 30, 0, 0, time.UTC), nil, day(2026, 11, 30)},
	}
	for _, tt := range tests {
		if got := DayIn(tt.t, tt.loc); !got.Equal(tt.want) || got.Location() != time.UTC {
			t.Errorf("DayIn(%v, %v) = %v, want %v", tt.t, tt.loc, got, tt.want)
		}
	}
}

func TestBillDayHelpers(t *testing.T) {
	t.Parallel()
	jakarta := mustZone(t, "Asia/Jakarta")
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	bill := Bill{Amount: 450000, Penalty: 25000, Due: day(2026, 1, 10), Expiry: day(2026, 1, 31), State: StateProvisioned}
	paid := bill
	paid.State = StatePaid
	expired := bill
	expired.State = StateExpired

	tests := []struct {
		name     string
		bill     Bill
		today    time.Time
		late     bool
		due      int64
		daysLate int
	}{
		{"before due", bill, time.Date(2026, 1, 8, 9, 0, 0, 0, jakarta), false, 450000, -2},
		{"on due day", bill, time.Date(2026, 1, 10, 23, 59, 0, 0, jakarta), false, 450000, 0},
		// 00:30 in Jakarta is still the 10th in UTC: the service's date counts.
		{"day after due, early morning", bill, time.Date(2026, 1, 11, 0, 30, 0, 0, jakarta), true, 475000, 1},
		{"on expiry day", bill, time.Date(2026, 1, 31, 12, 0, 0, 0, jakarta), true, 475000, 21},
		{"after expiry, state not yet updated", bill, time.Date(2026, 2, 1, 0, 5, 0, 0, jakarta), false, 0, 22},
		{"expired state", expired, time.Date(2026, 1, 20, 12, 0, 0, 0, jakarta), false, 0, 10},
		{"paid", paid, time.Date(2026, 1, 20, 12, 0, 0, 0, jakarta), false, 0, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.bill.IsLate(tt.today); got != tt.late {
				t.Errorf("IsLate = %v, want %v", got, tt.late)
			}
			if got := tt.bill.DueToday(tt.today); got != tt.due {
				t.Errorf("DueToday = %d, want %d", got, tt.due)
			}
			if got := tt.bill.DaysLate(tt.today); got != tt.daysLate {
				t.Errorf("DaysLate = %d, want %d", got, tt.daysLate)
			}
		})
	}

	if got, want := bill.ReminderDay(), day(2026, 1, 8); !got.Equal(want) {
		t.Errorf("ReminderDay = %v, want %v", got, want)
	}
	early := Bill{Due: day(2026, 3, 1)}
	if got, want := early.ReminderDay(), day(2026, 2, 27); !got.Equal(want) {
		t.Errorf("ReminderDay across a month = %v, want %v", got, want)
	}
}

func mustZone(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatalf("zone %s: %v", name, err)
	}
	return loc
}
