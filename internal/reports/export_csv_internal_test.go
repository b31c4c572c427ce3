package reports

import (
	"testing"
	"time"
)

// Fractions are written with the flavour's decimal separator; whole numbers, days and
// times of day are the same in both.
func TestCSVCellFlavours(t *testing.T) {
	jkt := time.FixedZone("WIB", 7*3600)
	paid := time.Date(2027, 3, 12, 16, 45, 30, 0, time.UTC) // 23:45 in Jakarta
	for _, tt := range []struct {
		v           any
		comma, semi string
	}{
		{1250000.5, "1250000.5", "1250000,5"},
		{0.25, "0.25", "0,25"},
		{int64(1250000), "1250000", "1250000"},
		{time.Date(2027, 3, 12, 0, 0, 0, 0, time.UTC), "2027-03-12", "2027-03-12"},
		{ClockOf(paid, jkt), "23:45", "23:45"},
		{ClockOf(time.Time{}, jkt), "", ""},
	} {
		if got := csvCell(tt.v, '.'); got != tt.comma {
			t.Errorf("CSV (,) %v = %q, want %q", tt.v, got, tt.comma)
		}
		if got := csvCell(tt.v, ','); got != tt.semi {
			t.Errorf("CSV (;) %v = %q, want %q", tt.v, got, tt.semi)
		}
	}
}
