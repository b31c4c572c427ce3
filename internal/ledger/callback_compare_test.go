package ledger

import (
	"slices"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
)

// What a callback says against what the service holds of its reference: each kind of
// disagreement on its own, and none for a callback the service bears out (a total that
// includes the admin fee, a date a few minutes off, values the callback leaves out).
func TestCompareCallback(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	payment := []billing.Bill{
		{ComponentID: "a", NIS: "2024001", StudentName: "Siti", AmountPaid: 275_000, PaidAt: at, RefNumber: "R"},
		{ComponentID: "b", NIS: "2024001", StudentName: "Siti", AmountPaid: 260_000, PaidAt: at, RefNumber: "R"},
	}
	genuine := billing.Callback{RefNumber: "R", NIS: "2024001", Total: 535_000, PaidAt: at, Components: []billing.CallbackComponent{
		{ComponentID: "a", AmountPaid: 275_000}, {ComponentID: "b", AmountPaid: 260_000}}}
	with := func(edit func(*billing.Callback)) billing.Callback {
		cb := genuine
		cb.Components = slices.Clone(genuine.Components)
		edit(&cb)
		return cb
	}
	for _, tc := range []struct {
		name       string
		cb         billing.Callback
		payment    []billing.Bill
		unverified bool
		want       []DisagreementKind
	}{
		{name: "as the service has it", cb: genuine, payment: payment},
		{name: "admin fee in the total", cb: with(func(c *billing.Callback) { c.Total, c.AdminFee = 537_500, 2_500 }), payment: payment},
		{name: "no total, no date, no student", cb: with(func(c *billing.Callback) { c.Total, c.PaidAt, c.NIS = 0, time.Time{}, "" }), payment: payment},
		{name: "a few minutes off", cb: with(func(c *billing.Callback) { c.PaidAt = at.Add(-9 * time.Minute) }), payment: payment},
		{name: "a component named twice", cb: with(func(c *billing.Callback) { c.Components = append(c.Components, c.Components[0]) }), payment: payment},
		{name: "another student", cb: with(func(c *billing.Callback) { c.NIS = "99999999" }), payment: payment, want: []DisagreementKind{DisagreeStudent}},
		{name: "another component", cb: with(func(c *billing.Callback) { c.Components[1].ComponentID = "x" }), payment: payment,
			want: []DisagreementKind{DisagreeComponent, DisagreeOmitted}},
		{name: "one left out", cb: with(func(c *billing.Callback) { c.Components, c.Total = c.Components[:1], 275_000 }), payment: payment,
			want: []DisagreementKind{DisagreeOmitted, DisagreeTotal}},
		{name: "Rp 1", cb: with(func(c *billing.Callback) { c.Components[0].AmountPaid = 1 }), payment: payment, want: []DisagreementKind{DisagreeAmount}},
		{name: "another total", cb: with(func(c *billing.Callback) { c.Total = 1 }), payment: payment, want: []DisagreementKind{DisagreeTotal}},
		{name: "2099", cb: with(func(c *billing.Callback) { c.PaidAt = time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC) }), payment: payment,
			want: []DisagreementKind{DisagreeDate}},
		{name: "an hour later", cb: with(func(c *billing.Callback) { c.PaidAt = at.Add(time.Hour) }), payment: payment, want: []DisagreementKind{DisagreeDate}},
		{name: "no such payment", cb: genuine, want: []DisagreementKind{DisagreeUnknown}},
		{name: "a payment of two students", cb: genuine, payment: []billing.Bill{payment[0], {ComponentID: "b", NIS: "2024002", AmountPaid: 260_000, PaidAt: at}},
			want: []DisagreementKind{DisagreeStudent}},
		{name: "no longer verifies", cb: billing.Callback{RefNumber: "R", NIS: "2024001", Total: 535_000}, payment: payment, unverified: true,
			want: []DisagreementKind{DisagreeUnverified}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []DisagreementKind
			for _, d := range compareCallback(tc.cb, tc.payment, tc.unverified) {
				got = append(got, d.Kind)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}
