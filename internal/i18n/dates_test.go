package i18n

import (
	"testing"
	"time"
)

// A day and an instant are printed by their own methods. At 01:30 WIB on 28 Nov (18:30
// UTC on the 27th) the instant's date is the 28th in the school's zone; a day travelling
// as UTC midnight is its own date in any zone, west of UTC too.
func TestDaysAndInstantsPrintTheSchoolsDate(t *testing.T) {
	t.Parallel()
	night := time.Date(2026, 11, 27, 18, 30, 0, 0, time.UTC)
	west, err := time.LoadLocation("America/Sao_Paulo")
	if err != nil {
		west = time.FixedZone("BRT", -3*60*60)
	}
	due := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"an instant at 01:30 WIB", NewPrinter(Indonesian, Jakarta()).Date(night), "28 Nov 2026"},
		{"the same instant held in the zone", NewPrinter(Indonesian, Jakarta()).Date(night.In(Jakarta())), "28 Nov 2026"},
		{"with its time", NewPrinter(English, Jakarta()).DateTime(night), "28 Nov 2026 01:30"},
		{"its month on the 1st at 01:30 WIB", NewPrinter(Indonesian, Jakarta()).Month(time.Date(2026, 11, 30, 18, 30, 0, 0, time.UTC)), "Des 2026"},
		{"a component day in Jakarta", NewPrinter(Indonesian, Jakarta()).Day(due), "28 Nov 2026"},
		{"a component day west of UTC", NewPrinter(Indonesian, west).Day(due), "28 Nov 2026"},
		{"an instant west of UTC", NewPrinter(Indonesian, west).Date(night), "27 Nov 2026"},
		// What the letters did: an instant given to Day reads its UTC date, yesterday.
		{"an instant is not a day", NewPrinter(Indonesian, Jakarta()).Day(night.In(Jakarta())), "27 Nov 2026"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}
