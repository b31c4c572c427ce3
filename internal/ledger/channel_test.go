package ledger_test

import (
	"context"
	"slices"
	"testing"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/sandbox"
)

func TestChannelOf(t *testing.T) {
	t.Parallel()
	for merchant, want := range map[string]ledger.Channel{
		"BCA":                     ledger.ChannelBank,
		"Bank Mandiri":            ledger.ChannelBank,
		"BRIVA":                   ledger.ChannelBank,
		"BNI Virtual Account":     ledger.ChannelBank,
		"bank danamon":            ledger.ChannelBank,
		"Danamon":                 ledger.ChannelBank, // not DANA
		"ATM Bersama":             ledger.ChannelBank,
		"m-banking":               ledger.ChannelBank,
		"ALFAMART":                ledger.ChannelMinimarket,
		"Indomaret":               ledger.ChannelMinimarket,
		"Indomaret (via BCA)":     ledger.ChannelMinimarket, // the shop, whatever bank is behind it
		"Circle K":                ledger.ChannelMinimarket,
		"DANA":                    ledger.ChannelEWallet,
		"GoPay":                   ledger.ChannelEWallet,
		"QRIS":                    ledger.ChannelEWallet,
		"ShopeePay":               ledger.ChannelEWallet,
		"Kantor Pos":              ledger.ChannelOther,
		"COUNTER":                 ledger.ChannelOther, // someone else's counter, never the school's
		"":                        ledger.ChannelOther,
		"  ":                      ledger.ChannelOther,
		"Koperasi Sekolah Bahari": ledger.ChannelOther,
	} {
		if got := ledger.ChannelOf(merchant); got != want {
			t.Errorf("ChannelOf(%q) = %s, want %s", merchant, got, want)
		}
	}
}

// TestPaymentChannels: where each payment was made reaches the ledger's figures only as
// the service bears it out: a confirmed callback's merchant and admin fee, nothing of a
// callback waiting for the service or disputed (its payment reads "not known"), the
// counter's cashier, and "not known" for a payment the sync found on its own.
func TestPaymentChannels(t *testing.T) { eachEngine(t, testPaymentChannels) }

func testPaymentChannels(t *testing.T, engine string) {
	e := newEnvOn(t, engine, syncNow)
	ctx := context.Background()
	st := e.students("C", 4)
	today := billing.DayIn(e.sb.Now(), jakarta)
	var in []billing.ComponentInput
	for i, s := range st {
		for k := range 2 {
			due := today.AddDate(0, 0, 10+k)
			in = append(in, billing.ComponentInput{NIS: s.NIS, AccountCode: "SPP", Name: "SPP " + string(rune('A'+k)), Due: due,
				Expiry: due.AddDate(0, 2, 0), Amount: int64(100_000 * (i + 1))})
		}
	}
	bills, err := e.c.CreateComponents(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	e.sync()
	of := func(nis string) []string {
		var ids []string
		for _, b := range bills {
			if b.NIS == nis {
				ids = append(ids, b.ComponentID)
			}
		}
		return ids
	}

	// A minimarket's payment of two components, with its fee, confirmed at once.
	e.sandboxPost("/_sandbox/bank-payment", map[string]any{"bill_key": st[0].NIS, "bill_component_list": of(st[0].NIS),
		"merchant_name": "Indomaret", "admin_fee": 2500}, nil)
	e.waitCallbacks()
	if cb := e.callbackOf(st[0].NIS); cb.Status != ledger.CallbackConfirmed {
		t.Fatalf("Indomaret's callback %s", cb.Status)
	}

	// A bank's payment while the service does not answer: stored, not confirmed.
	e.sb.SetFaults(sandbox.Faults{ErrorRate: 1, Status: 503})
	e.sandboxPost("/_sandbox/bank-payment", map[string]any{"bill_key": st[1].NIS, "bill_component_list": of(st[1].NIS)[:1],
		"merchant_name": "BCA", "admin_fee": 4000}, nil)
	e.waitCallbacks()
	e.sb.SetFaults(sandbox.Faults{})
	waiting := e.callbackOf(st[1].NIS)
	if waiting.Status != ledger.CallbackUnconfirmed {
		t.Fatalf("BCA's callback %s", waiting.Status)
	}

	// A payment made past the portal, which the sync finds.
	if _, err := e.c.Pay(ctx, billing.Payment{NIS: st[2].NIS, RefNumber: "TU-77", ComponentIDs: of(st[2].NIS)[:1]}); err != nil {
		t.Fatal(err)
	}
	// A counter payment, and one sent without an answer (never recorded by the service).
	if err := e.l.CounterSending(ctx, st[3].NIS, "KW/1", "siti", "Siti Rahma"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.Pay(ctx, billing.Payment{NIS: st[3].NIS, RefNumber: "KW/1", ComponentIDs: of(st[3].NIS)}); err != nil {
		t.Fatal(err)
	}
	if err := e.l.CounterRecorded(ctx, st[3].NIS, "KW/1"); err != nil {
		t.Fatal(err)
	}
	if err := e.l.CounterSending(ctx, st[2].NIS, "KW/2", "budi", "Budi"); err != nil {
		t.Fatal(err)
	}
	e.sync()

	days, err := e.l.PaymentChannels(ctx, today, today, "")
	if err != nil {
		t.Fatal(err)
	}
	got := map[ledger.Channel]ledger.ChannelDay{}
	for _, d := range days {
		if !d.Day.Equal(today) {
			t.Errorf("a payment on %s", d.Day)
		}
		got[d.Channel] = d
	}
	want := map[ledger.Channel]ledger.ChannelDay{
		ledger.ChannelMinimarket: {Day: today, Channel: ledger.ChannelMinimarket, Payments: 1, Components: 2, Paid: 200_000, AdminFee: 2500},
		// BCA's payment is in the ledger once the sync read it, but its callback was not
		// confirmed: where it was made is not known, and its fee is nobody's figure.
		ledger.ChannelUnknown: {Day: today, Channel: ledger.ChannelUnknown, Payments: 2, Components: 2, Paid: 200_000 + 300_000},
		ledger.ChannelCounter: {Day: today, Channel: ledger.ChannelCounter, Payments: 1, Components: 2, Paid: 800_000},
	}
	if len(got) != len(want) {
		t.Errorf("channels %+v", days)
	}
	for c, w := range want {
		if got[c] != w {
			t.Errorf("%s: %+v, want %+v", c, got[c], w)
		}
	}
	// The payments report's rows say the same, the fee on each of the payment's rows.
	for r, err := range e.l.Payments(ctx, today, today, "") {
		if err != nil {
			t.Fatal(err)
		}
		switch r.NIS {
		case st[0].NIS:
			if r.Channel != ledger.ChannelMinimarket || r.Merchant != "Indomaret" || r.AdminFee != 2500 || r.MerchantRef == "" {
				t.Errorf("Indomaret's row %+v", r)
			}
		case st[3].NIS:
			if r.Channel != ledger.ChannelCounter || r.Cashier != "Siti Rahma" || r.AdminFee != 0 {
				t.Errorf("the counter's row %+v", r)
			}
		default:
			if r.Channel != ledger.ChannelUnknown || r.Merchant != "" || r.AdminFee != 0 {
				t.Errorf("%s's row %+v", r.NIS, r)
			}
		}
	}

	// The counter's receipts of the day by cashier, and the payment without an answer.
	rs, err := e.l.CounterReceipts(ctx, today)
	if err != nil || len(rs) != 1 || rs[0].Cashier != "siti" || rs[0].CashierName != "Siti Rahma" || rs[0].Ref != "KW/1" ||
		rs[0].Amount != 800_000 || rs[0].Components != 2 || rs[0].Name != st[3].Name {
		t.Fatalf("counter receipts %+v %v", rs, err)
	}
	as, err := e.l.CounterAttempts(ctx, today)
	if err != nil || len(as) != 1 || as[0].Ref != "KW/2" || as[0].Cashier != "budi" || as[0].Answered {
		t.Fatalf("attempts %+v %v", as, err)
	}
	if as, _ := e.l.CounterAttempts(ctx, today.AddDate(0, 0, 1)); len(as) != 0 {
		t.Errorf("tomorrow's attempts %+v", as)
	}
	if err := e.l.CounterNotSent(ctx, st[2].NIS, "KW/2"); err != nil {
		t.Fatal(err)
	}
	// A refusal never drops a recorded payment's row.
	if err := e.l.CounterNotSent(ctx, st[3].NIS, "KW/1"); err != nil {
		t.Fatal(err)
	}
	if as, _ := e.l.CounterAttempts(ctx, today); len(as) != 0 {
		t.Errorf("attempts after the refusal %+v", as)
	}
	if rs, _ := e.l.CounterReceipts(ctx, today); len(rs) != 1 {
		t.Errorf("the recorded counter payment went with a refusal: %+v", rs)
	}

	// Once the service answers, BCA's callback is confirmed: its channel and fee come.
	if _, err := e.cf.Confirm(ctx, waiting.RefNumber); err != nil {
		t.Fatal(err)
	}
	days, _ = e.l.PaymentChannels(ctx, today, today, "")
	if i := slices.IndexFunc(days, func(d ledger.ChannelDay) bool { return d.Channel == ledger.ChannelBank }); i < 0 ||
		days[i].AdminFee != 4000 || days[i].Paid != 200_000 || days[i].Payments != 1 {
		t.Errorf("after BCA's confirmation %+v", days)
	}

	// Channels of callbacks confirmed before payments kept them are filled from the
	// stored bodies, once.
	if _, err := e.db.SQL().ExecContext(ctx, `DELETE FROM ledger_payment_channels WHERE channel <> 'counter'`); err != nil {
		t.Fatal(err)
	}
	if n, err := e.l.BackfillChannels(ctx); err != nil || n != 2 {
		t.Fatalf("backfilled %d %v", n, err)
	}
	if n, err := e.l.BackfillChannels(ctx); err != nil || n != 0 {
		t.Fatalf("backfilled again %d %v", n, err)
	}
	again, _ := e.l.PaymentChannels(ctx, today, today, "")
	if !slices.Equal(again, days) {
		t.Errorf("after the backfill %+v, before %+v", again, days)
	}
	// Another day has nothing; an account filter keeps its own.
	if d, err := e.l.PaymentChannels(ctx, today.AddDate(0, 0, 1), today.AddDate(0, 0, 2), ""); err != nil || len(d) != 0 {
		t.Errorf("tomorrow %+v %v", d, err)
	}
	if d, err := e.l.PaymentChannels(ctx, today, today, "MANDIRI"); err != nil || len(d) != 0 {
		t.Errorf("MANDIRI %+v %v", d, err)
	}
}

// TestDisputedCallbackKeepsNoChannel: a callback the service contradicts records the
// service's payment, and nothing of where the callback says it was made.
func TestDisputedCallbackKeepsNoChannel(t *testing.T) {
	eachEngine(t, testDisputedCallbackKeepsNoChannel)
}

func testDisputedCallbackKeepsNoChannel(t *testing.T, engine string) {
	e := newEnvOn(t, engine, syncNow)
	ctx := context.Background()
	st := e.students("D", 1)
	today := billing.DayIn(e.sb.Now(), jakarta)
	bills, err := e.c.CreateComponents(ctx, []billing.ComponentInput{{NIS: st[0].NIS, AccountCode: "SPP", Name: "SPP Maret",
		Due: today.AddDate(0, 0, 5), Expiry: today.AddDate(0, 1, 0), Amount: 150_000}})
	if err != nil {
		t.Fatal(err)
	}
	e.sync()
	b := bills[0]
	_, sig, body := e.undelivered(b.NIS, b.ComponentID)
	forged := edited(t, body, func(m map[string]any) {
		m["merchant_name"] = "Alfamart"
		m["admin_fee"] = 99_000
		m["total_bill_amount"] = 1
	})
	res, err := e.cf.Receive(ctx, sig, forged)
	if err != nil || res.Status != ledger.CallbackDisputed {
		t.Fatalf("forged callback %+v %v", res, err)
	}
	days, err := e.l.PaymentChannels(ctx, today, today, "")
	if err != nil || len(days) != 1 || days[0].Channel != ledger.ChannelUnknown || days[0].AdminFee != 0 {
		t.Fatalf("a disputed callback's channel %+v %v", days, err)
	}
}
