package corrections_test

import (
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/corrections"
	"github.com/sekolah/portal/internal/problem"
)

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

func TestChangesAndApplied(t *testing.T) {
	t.Parallel()
	before := billing.Bill{ComponentID: "c1", NIS: "2601", Name: "SPP Desember", AccountCode: "SPP", Amount: 450_000, Penalty: 25_000,
		Due: day(2026, 12, 10), Expiry: day(2027, 1, 31), Active: day(2026, 12, 1), Notes: "x", State: billing.StateProvisioned}
	same := billing.ComponentInput{NIS: "2601", Name: "SPP Desember", AccountCode: "SPP", Amount: 450_000, Penalty: 25_000,
		Due: day(2026, 12, 10).Add(7 * time.Hour), Expiry: day(2027, 1, 31), Active: day(2026, 12, 1), Notes: "x"}
	if u := corrections.Changes(before, same); !corrections.Empty(u) {
		t.Errorf("no change reads as %+v", u)
	}
	in := same
	in.Amount, in.Active, in.Expiry = 500_000, time.Time{}, day(2027, 2, 28)
	u := corrections.Changes(before, in)
	if u.Amount == nil || *u.Amount != 500_000 || u.Active == nil || !u.Active.IsZero() || u.Expiry == nil || u.Name != nil || u.Due != nil || u.Penalty != nil || u.Notes != nil {
		t.Fatalf("changes = %+v", u)
	}
	if corrections.Applied(before, u) {
		t.Error("before reads as already applied")
	}
	after := before
	after.Amount, after.Active, after.Expiry = 500_000, time.Time{}, day(2027, 2, 28).Add(17*time.Hour)
	if !corrections.Applied(after, u) {
		t.Error("after does not read as applied")
	}
	for _, tc := range []struct {
		state billing.State
		want  string
	}{{billing.StateProvisioned, ""}, {billing.StateExpired, ""}, {billing.StatePaid, corrections.KeyPaid}, {billing.StateDeleted, corrections.KeyDeleted}} {
		if got := corrections.Refusal(billing.Bill{State: tc.state}); got != tc.want {
			t.Errorf("refusal of %s = %q", tc.state, got)
		}
	}
	for _, tc := range []struct {
		reason string
		bad    bool
	}{{"", true}, {"   ", true}, {"salah nominal", false}, {string(make([]byte, 201)), true}} {
		var l problem.List
		corrections.CheckReason(&l, tc.reason)
		if (len(l) > 0) != tc.bad {
			t.Errorf("reason %q: %v", tc.reason, l)
		}
	}
}
