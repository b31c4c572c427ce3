package reports_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/reports"
)

// The receipts by channel add up to the payments report's totals, by day, by month and
// over the range; a payment counts once however many components it paid.
func TestChannelsAgreeWithThePaymentsReport(t *testing.T) {
	t.Parallel()
	var bills []billing.Bill
	pay := func(nis, ref string, paid time.Time, amounts ...int64) {
		for _, a := range amounts {
			bills = append(bills, billing.Bill{ComponentID: fmt.Sprintf("c%03d", len(bills)), NIS: nis, StudentName: "Siswa " + nis,
				Name: "SPP", AccountCode: "SPP", Amount: a, AmountPaid: a, State: billing.StatePaid, Due: day(2027, 2, 10),
				Expiry: day(2027, 5, 10), PaidAt: paid, RefNumber: ref})
		}
	}
	pay("1001", "KW/1", wib(2027, 2, 27, 9, 0), 100_000, 150_000)
	pay("1002", "BNK-1", wib(2027, 2, 27, 23, 30), 200_000) // 23:30 in Jakarta is still the 27th
	pay("1003", "KW/2", wib(2027, 3, 1, 8, 0), 300_000)
	pay("1001", "", wib(2027, 3, 1, 10, 0), 50_000, 60_000) // no reference: each its own payment
	svc, l := memoryLedger(t, bills, nil, today)
	ctx := context.Background()
	for _, ref := range []struct{ nis, ref string }{{"1001", "KW/1"}, {"1003", "KW/2"}} {
		if err := l.CounterSending(ctx, ref.nis, ref.ref, "siti", "Siti"); err != nil {
			t.Fatal(err)
		}
		if err := l.CounterRecorded(ctx, ref.nis, ref.ref); err != nil {
			t.Fatal(err)
		}
	}
	f := reports.PaymentsFilter{From: day(2027, 2, 1), To: day(2027, 3, 15)}
	rep, err := svc.Payments(ctx, f, false)
	if err != nil {
		t.Fatal(err)
	}
	ch := rep.Value.Channels
	counter := reports.ChannelTotal{Channel: ledger.ChannelCounter, Payments: 2, Components: 3, Paid: 550_000}
	unknown := reports.ChannelTotal{Channel: ledger.ChannelUnknown, Payments: 3, Components: 3, Paid: 310_000}
	if !slices.Equal(ch.Channels, []reports.ChannelTotal{counter, unknown}) ||
		!slices.Equal(ch.Used, []ledger.Channel{ledger.ChannelCounter, ledger.ChannelUnknown}) {
		t.Fatalf("channels %+v used %v", ch.Channels, ch.Used)
	}
	if ch.Total.Paid != rep.Value.Total.Paid || ch.Total.Components != rep.Value.Total.Count || ch.Total.Payments != 5 {
		t.Errorf("total %+v, the report's %+v", ch.Total, rep.Value.Total)
	}
	if len(ch.Days) != len(rep.Value.Days) {
		t.Fatalf("%d days by channel, %d in the report", len(ch.Days), len(rep.Value.Days))
	}
	for i, d := range ch.Days {
		if r := rep.Value.Days[i]; !d.Start.Equal(r.Day) || d.Total.Paid != r.Paid || d.Total.Components != r.Count {
			t.Errorf("day %s: %+v, the report's %+v", d.Start.Format(time.DateOnly), d.Total, r)
		}
	}
	feb := ch.Period(day(2027, 2, 1))
	if feb.Of(ledger.ChannelCounter).Paid != 250_000 || feb.Of(ledger.ChannelUnknown).Paid != 200_000 || feb.Total.Payments != 2 ||
		ch.Period(day(2027, 3, 1)).Total.Paid != 410_000 || len(ch.Months) != 2 {
		t.Errorf("months %+v", ch.Months)
	}
	if d := ch.Period(day(2027, 3, 1)); d.Channels[0].Channel != ledger.ChannelCounter || d.Of(ledger.ChannelUnknown).Payments != 2 {
		t.Errorf("1 March %+v", d)
	}
	// The dashboard's month: March up to today.
	m, err := svc.MonthChannels(ctx)
	if err != nil || !m.From.Equal(day(2027, 3, 1)) || m.Total.Paid != 410_000 {
		t.Errorf("this month %+v %v", m, err)
	}
	if _, err := svc.Channels(ctx, reports.PaymentsFilter{From: day(2027, 3, 2), To: day(2027, 3, 1)}); err == nil {
		t.Error("a backwards range")
	}
}
