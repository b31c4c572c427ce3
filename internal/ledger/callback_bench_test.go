package ledger_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
)

// BenchmarkCallbackToDashboard is the time from a bank's callback arriving to its payment
// on the dashboard, with no sync: the callback verified and stored, the service asked
// about its reference over HTTP (the sandbox), the answer recorded with the totals and
// audited, and the dashboard's figures read, which then include it. Each payment is made
// at the service and signed as the service signs its callbacks, outside the timing.
func BenchmarkCallbackToDashboard(b *testing.B) {
	e := newEnv(b, syncNow)
	ctx := context.Background()
	st := e.students("B", 50)
	today := billing.DayIn(e.sb.Now(), jakarta)
	var pool []billing.Bill
	more := func(n int) {
		in := make([]billing.ComponentInput, n)
		for i := range in {
			due := today.AddDate(0, 0, 10+i%60)
			in[i] = billing.ComponentInput{NIS: st[i%len(st)].NIS, AccountCode: "SPP", Name: fmt.Sprintf("SPP %d", i%12), Due: due,
				Expiry: due.AddDate(0, 3, 0), Amount: 150_000}
		}
		got, err := e.c.CreateComponents(ctx, in)
		if err != nil {
			b.Fatal(err)
		}
		pool = append(pool, got...)
	}
	more(1000)
	e.components(st, 4000, "Lain") // a ledger of a few thousand components besides
	e.sync()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		if len(pool) == 0 {
			more(1000)
		}
		c := pool[0]
		pool = pool[1:]
		ref := fmt.Sprintf("BENCH%06d", i)
		paid, err := e.c.Pay(ctx, billing.Payment{NIS: c.NIS, RefNumber: ref, ComponentIDs: []string{c.ComponentID}})
		if err != nil {
			b.Fatal(err)
		}
		body, _ := json.Marshal(map[string]any{"merchant_name": "BNI", "biller_code": sbUser, "bill_key": c.NIS, "ref_number": ref,
			"total_bill_amount": paid[0].AmountPaid, "paid_date": paid[0].PaidAt.Format(time.RFC3339Nano),
			"bill_component_list": []any{map[string]any{"bill_component_id": c.ComponentID, "amount_paid": paid[0].AmountPaid, "state": "paid", "ref_number": ref}}})
		sig := billing.CallbackSignature(sbPass, sbUser, ref)
		before, err := e.l.Dashboard(ctx)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()

		if _, err := e.cf.Receive(ctx, sig, body); err != nil {
			b.Fatal(err)
		}
		d, err := e.l.Dashboard(ctx)
		if err != nil {
			b.Fatal(err)
		}

		b.StopTimer()
		if d.CollectedToday.Amount != before.CollectedToday.Amount+paid[0].AmountPaid {
			b.Fatalf("the dashboard does not show payment %s: %+v, was %+v", ref, d.CollectedToday, before.CollectedToday)
		}
		b.StartTimer()
	}
}
