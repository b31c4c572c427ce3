package billing

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"
)

func TestDailyPasswordVector(t *testing.T) {
	t.Parallel()
	// The contract's vector, computed here without the package's code.
	inner := sha256.Sum256([]byte("secret"))
	if got := hex.EncodeToString(inner[:]); got != "2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b" {
		t.Fatalf("inner digest %s differs from the contract", got)
	}
	outer := sha256.Sum256([]byte("2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b" + "20261122"))
	want := hex.EncodeToString(outer[:])
	// Also fixed as text (from `sha256sum`) so a wrong concatenation above cannot hide.
	if want != "15a46b19eb7ef794532ee308e66eb2509151b90f28748f268080625f576bb61c" {
		t.Fatalf("independent digest %s", want)
	}
	jakarta := mustZone(t, "Asia/Jakarta")
	tests := []struct {
		name string
		day  time.Time
	}{
		{"date in Jakarta", time.Date(2026, 11, 22, 0, 1, 0, 0, jakarta)},
		{"date as given, not converted", time.Date(2026, 11, 22, 23, 59, 0, 0, time.UTC)},
	}
	for _, tt := range tests {
		if got := DailyPassword("secret", tt.day); got != want {
			t.Errorf("%s: DailyPassword = %s, want %s", tt.name, got, want)
		}
	}
	if DailyPassword("secret", time.Date(2026, 11, 23, 0, 0, 0, 0, jakarta)) == want {
		t.Error("the next day's password is the same")
	}
}

func TestPasswordDateOrder(t *testing.T) {
	t.Parallel()
	jakarta := mustZone(t, "Asia/Jakarta")
	tests := []struct {
		name string
		zone *time.Location
		now  time.Time
		want string // the dates tried, in order
	}{
		// 01:30 in Jakarta is still the day before in UTC: the UTC date is also the day before.
		{"Jakarta at 01:30", jakarta, time.Date(2026, 1, 6, 1, 30, 0, 0, jakarta), "20260106 20260105 20260107"},
		{"Jakarta at 10:00", jakarta, time.Date(2026, 1, 6, 10, 0, 0, 0, jakarta), "20260106 20260105 20260107"},
		{"Jakarta at 23:55", jakarta, time.Date(2026, 1, 31, 23, 55, 0, 0, jakarta), "20260131 20260130 20260201"},
		{"UTC at 18:30 (01:30 in Jakarta)", time.UTC, time.Date(2026, 1, 5, 18, 30, 0, 0, time.UTC), "20260105 20260104 20260106"},
		{"year end", jakarta, time.Date(2026, 12, 31, 20, 0, 0, 0, jakarta), "20261231 20261230 20270101"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := New(Config{BaseURL: "http://x", Username: "u", Password: "p", Location: tt.zone, Now: time.Now})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range c.signings(tt.now) {
				got = append(got, s.day.Format("20060102"))
			}
			if strings.Join(got, " ") != tt.want {
				t.Errorf("dates %v, want %s", got, tt.want)
			}
		})
	}
}

func TestZoneOfDate(t *testing.T) {
	t.Parallel()
	jakarta := mustZone(t, "Asia/Jakarta")
	at0130 := time.Date(2026, 1, 6, 1, 30, 0, 0, jakarta)
	tests := []struct {
		name                string
		now                 time.Time
		date                string
		current, configured *time.Location
		want                *time.Location
	}{
		{"own date at night", at0130, "20260106", jakarta, jakarta, jakarta},
		{"UTC date at night", at0130, "20260105", jakarta, jakarta, time.UTC},
		{"UTC client, the service a day ahead at night", at0130, "20260106", time.UTC, time.UTC, jakarta},
		{"learned UTC stays by day", time.Date(2026, 1, 6, 12, 0, 0, 0, jakarta), "20260106", time.UTC, jakarta, time.UTC},
	}
	for _, tt := range tests {
		if got := zoneOfDate(tt.now, tt.date, tt.current, tt.configured); got.String() != tt.want.String() {
			t.Errorf("%s: zone %v, want %v", tt.name, got, tt.want)
		}
	}
	// A clock ahead near midnight matches no zone: the guess is kept.
	if got := zoneOfDate(time.Date(2026, 1, 31, 23, 55, 0, 0, jakarta), "20260201", jakarta, jakarta); got != nil {
		t.Errorf("clock ahead: zone %v, want none", got)
	}
}

// debugLogger writes every debug line to w.
func debugLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
