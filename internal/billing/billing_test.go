package billing

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"log/slog"
	"testing"
	"time"
)

func TestDailyPasswordVector(t *testing.T) {
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

func TestNeighbourDay(t *testing.T) {
	jakarta := mustZone(t, "Asia/Jakarta")
	tests := []struct {
		now  time.Time
		want string // "" when no retry
	}{
		{time.Date(2026, 1, 31, 23, 55, 0, 0, jakarta), "20260201"},
		{time.Date(2026, 1, 31, 23, 50, 0, 0, jakarta), "20260201"},
		{time.Date(2026, 1, 31, 23, 49, 59, 0, jakarta), ""},
		{time.Date(2026, 2, 1, 0, 3, 0, 0, jakarta), "20260131"},
		{time.Date(2026, 2, 1, 0, 10, 0, 0, jakarta), ""},
		{time.Date(2026, 2, 1, 12, 0, 0, 0, jakarta), ""},
	}
	for _, tt := range tests {
		other, ok := neighbourDay(tt.now)
		got := ""
		if ok {
			got = other.Format("20060102")
		}
		if got != tt.want {
			t.Errorf("neighbourDay(%s) = %q, want %q", tt.now.Format(time.TimeOnly), got, tt.want)
		}
	}
}

// debugLogger writes every debug line to w.
func debugLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
