package web_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/sandbox"
	"github.com/sekolah/portal/internal/store"
)

// bankPaid pays ids of nis as a parent at a bank would and returns the callback the
// service signed for the payment. The sandbox of these tests delivers nothing (its
// callback address is empty): the test delivers it, as the service or as an attacker who
// holds that one valid signature.
func bankPaid(t *testing.T, p *portaltest.Portal, nis string, ids ...string) sandbox.Callback {
	t.Helper()
	before := len(p.Sandbox.Callbacks())
	if err := sandboxPost(p, "/_sandbox/bank-payment", map[string]any{"bill_key": nis, "bill_component_list": ids, "merchant_name": "BNI"}); err != nil {
		t.Fatal(err)
	}
	cbs := p.Sandbox.Callbacks()
	if len(cbs) != before+1 {
		t.Fatalf("the bank payment made %d callbacks", len(cbs)-before)
	}
	return cbs[len(cbs)-1]
}

// forged is cb's body changed by edit: what an attacker sends under cb's signature.
func forged(t *testing.T, cb sandbox.Callback, edit func(body map[string]any)) []byte {
	t.Helper()
	var body map[string]any
	if err := json.Unmarshal(cb.Body, &body); err != nil {
		t.Fatal(err)
	}
	edit(body)
	out, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// paying names components in a callback body's bill_component_list.
func paying(ref string, items ...map[string]any) []any {
	out := make([]any, len(items))
	for i, it := range items {
		it["amount_currency"], it["state"], it["ref_number"] = "IDR", "paid", ref
		out[i] = it
	}
	return out
}

// deliver posts a callback body under signature to the portal's route and wants 200.
func deliver(t *testing.T, p *portaltest.Portal, signature string, body []byte) {
	t.Helper()
	if code, answer := postCallback(t, p, signature, body); code != http.StatusOK {
		t.Fatalf("the callback route answered %d %q", code, answer)
	}
}

// ledgerSays is the ledger's record of component id.
func ledgerSays(t *testing.T, p *portaltest.Portal, id string) billing.Bill {
	t.Helper()
	b, err := p.App.Ledger.Component(t.Context(), id)
	if err != nil {
		t.Fatalf("component %s in the ledger: %v", id, err)
	}
	return b
}

// serviceSays is the service's record of component id.
func serviceSays(t *testing.T, p *portaltest.Portal, id string) billing.Bill {
	t.Helper()
	b, err := p.Billing.GetComponent(t.Context(), id)
	if err != nil {
		t.Fatalf("component %s at the service: %v", id, err)
	}
	return b
}

// agrees fails the test unless the ledger holds what the service holds of the payment
// fields of each component.
func agrees(t *testing.T, p *portaltest.Portal, ids ...string) {
	t.Helper()
	for _, id := range ids {
		l, s := ledgerSays(t, p, id), serviceSays(t, p, id)
		if l.State != s.State || l.AmountPaid != s.AmountPaid || !l.PaidAt.Equal(s.PaidAt.Truncate(time.Microsecond)) || l.RefNumber != s.RefNumber {
			t.Errorf("%s (%s, NIS %s): the ledger says %s %d paid %s ref %q; the service %s %d paid %s ref %q", l.Name, id, l.NIS,
				l.State, l.AmountPaid, l.PaidAt, l.RefNumber, s.State, s.AmountPaid, s.PaidAt, s.RefNumber)
		}
	}
}

// The attacks of issue 30 on a signed callback's body, each through the real route and
// the real sandbox: the signature covers only the biller code and the reference, so an
// attacker holding one valid signature may send any body under it. None of them may put
// a payment in the ledger that the service does not hold, and five incremental syncs
// later the ledger still agrees with the service.
func TestCallbackBodiesAreNotBelieved(t *testing.T) {
	t.Parallel()
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			testCallbackBodiesAreNotBelieved(t, engine == "postgres")
		})
	}
}

func testCallbackBodiesAreNotBelieved(t *testing.T, postgres bool) {
	p := portaltest.Start(t, portaltest.Options{Now: billsNow, Postgres: postgres,
		Sandbox: func(o *sandbox.Options) { o.CallbackURL = "" }})
	s := seedBills(t, p)
	ctx := t.Context()
	// Bills the attacks aim at: a Rp 1.200.000 one of Siti's, and for Budi two the
	// ledger has not seen yet (made at the service a moment ago).
	big, err := p.Billing.CreateComponents(ctx, []billing.ComponentInput{
		{NIS: "2024001", AccountCode: "SPP", Name: "Uang gedung", Due: billDay("2026-12-10"), Expiry: billDay("2027-06-30"), Amount: 1_200_000}})
	if err != nil {
		t.Fatal(err)
	}
	p.SyncLedger(t)
	fresh, err := p.Billing.CreateComponents(ctx, []billing.ComponentInput{
		{NIS: "2024002", AccountCode: "SPP", Name: "Kegiatan", Due: billDay("2026-12-01"), Expiry: billDay("2027-01-31"), Amount: 75_000},
		{NIS: "2024002", AccountCode: "BCA", Name: "Pramuka", Due: billDay("2026-12-01"), Expiry: billDay("2027-01-31"), Amount: 40_000}})
	if err != nil {
		t.Fatal(err)
	}
	oktober, gedung, seragam := s.id("SPP Oktober"), big[0].ComponentID, s.id("Seragam")
	watched := []string{oktober, gedung, seragam, s.id("SPP Desember"), s.id("SPP November"), s.id("Study tour"), s.id("Buku"),
		fresh[0].ComponentID, fresh[1].ComponentID}
	unpaid := func(id string) {
		t.Helper()
		if got := ledgerSays(t, p, id); got.State == billing.StatePaid {
			t.Errorf("%s (NIS %s) is paid in the ledger (%d, ref %s), not at the service", got.Name, got.NIS, got.AmountPaid, got.RefNumber)
		}
	}

	refs := map[string]string{}
	t.Run("a resend with another body", func(t *testing.T) {
		// Budi pays a bill the ledger has not seen yet; the callback arrives as sent.
		cb := bankPaid(t, p, "2024002", fresh[0].ComponentID)
		refs["resent"] = cb.RefNumber
		deliver(t, p, cb.Signature, cb.Body)
		agrees(t, p, fresh[0].ComponentID)
		// The same signature again, with a body that pays Siti's October fee.
		deliver(t, p, cb.Signature, forged(t, cb, func(b map[string]any) {
			b["bill_key"], b["bill_name"], b["total_bill_amount"] = "2024001", "Siti Aminah", 275_000
			b["bill_component_list"] = paying(cb.RefNumber, map[string]any{"bill_component_id": oktober, "amount_paid": 275_000})
		}))
		unpaid(oktober)
		agrees(t, p, fresh[0].ComponentID, oktober)
	})

	t.Run("a body naming another student", func(t *testing.T) {
		// The first delivery of a real payment's reference (Budi's), with a body naming
		// student 99999999 and Siti's October fee.
		cb := bankPaid(t, p, "2024002", fresh[1].ComponentID)
		refs["student"] = cb.RefNumber
		deliver(t, p, cb.Signature, forged(t, cb, func(b map[string]any) {
			b["bill_key"], b["bill_name"], b["total_bill_amount"] = "99999999", "Nobody", 275_000
			b["bill_component_list"] = paying(cb.RefNumber, map[string]any{"bill_component_id": oktober, "amount_paid": 275_000})
		}))
		unpaid(oktober)
		// What the service says of that reference is what the ledger holds: Budi's payment.
		agrees(t, p, oktober, fresh[1].ComponentID)
	})

	t.Run("amount_paid 1 settles nothing", func(t *testing.T) {
		cb := bankPaid(t, p, "2024001", s.id("SPP Desember"))
		refs["amount"] = cb.RefNumber
		deliver(t, p, cb.Signature, forged(t, cb, func(b map[string]any) {
			b["total_bill_amount"] = 2
			b["bill_component_list"] = paying(cb.RefNumber,
				map[string]any{"bill_component_id": gedung, "amount_paid": 1},
				map[string]any{"bill_component_id": s.id("SPP Desember"), "amount_paid": 1})
		}))
		unpaid(gedung)
		if got := ledgerSays(t, p, s.id("SPP Desember")); got.AmountPaid != 260_000 {
			t.Errorf("SPP Desember paid %d in the ledger, the service says 260.000", got.AmountPaid)
		}
		agrees(t, p, gedung, s.id("SPP Desember"))
	})

	t.Run("an expired component", func(t *testing.T) {
		cb := bankPaid(t, p, "2024003", s.id("Study tour"))
		refs["expired"] = cb.RefNumber
		deliver(t, p, cb.Signature, forged(t, cb, func(b map[string]any) {
			b["bill_key"], b["bill_name"], b["total_bill_amount"] = "2024002", "Budi Santoso", 300_000
			b["bill_component_list"] = paying(cb.RefNumber, map[string]any{"bill_component_id": seragam, "amount_paid": 300_000})
		}))
		unpaid(seragam)
		if got := ledgerSays(t, p, seragam); got.State != billing.StateExpired {
			t.Errorf("Seragam is %s in the ledger, expired at the service", got.State)
		}
		agrees(t, p, seragam, s.id("Study tour"))
	})

	t.Run("paid_date in 2099", func(t *testing.T) {
		cb := bankPaid(t, p, "2024001", oktober)
		refs["date"] = cb.RefNumber
		deliver(t, p, cb.Signature, forged(t, cb, func(b map[string]any) { b["paid_date"] = "2099-01-01T00:00:00Z" }))
		if got := ledgerSays(t, p, oktober); got.PaidAt.Year() == 2099 {
			t.Errorf("SPP Oktober paid on %s in the ledger", got.PaidAt)
		}
		agrees(t, p, oktober)
	})

	t.Run("five incremental syncs later", func(t *testing.T) {
		for range 5 {
			p.SyncLedger(t)
		}
		agrees(t, p, watched...)
	})

	t.Run("kept, audited and shown to the admins", func(t *testing.T) {
		stored, err := p.App.Ledger.Callbacks(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		status := map[string]ledger.StoredCallback{}
		for _, c := range stored {
			status[c.RefNumber] = c
		}
		if c := status[refs["resent"]]; c.Status != ledger.CallbackConfirmed || c.Callback.NIS != "2024002" || c.OtherBodies != 1 || c.Deliveries != 2 {
			t.Errorf("the resent one: %+v", c)
		}
		for _, k := range []string{"student", "amount", "expired", "date"} {
			if c := status[refs[k]]; c.Status != ledger.CallbackDisputed || len(c.Disagreements) == 0 {
				t.Errorf("%s: %+v", k, c)
			}
		}
		audit := func(action string) int {
			es, _, err := p.DB.ListAudit(ctx, store.AuditFilter{Action: action, Limit: 50})
			if err != nil {
				t.Fatal(err)
			}
			return len(es)
		}
		if n, m := audit(ledger.ActionCallbackDisputed), audit(ledger.ActionCallbackResent); n != 4 || m != 1 {
			t.Errorf("audited %d disputed, %d resent", n, m)
		}

		res := p.SignedIn(t, "admin").Get("/settings/data")
		if res.StatusCode != http.StatusOK {
			t.Fatalf("data page: %d", res.StatusCode)
		}
		flagged := res.Doc.Find(`[data-testid="flagged-callback"]`)
		if flagged.Length() != 5 {
			t.Fatalf("%d callbacks listed", flagged.Length())
		}
		if got := billsText(res.Doc.Find(`[data-testid="callbacks-flagged-count"]`)); !strings.Contains(got, "4 notifikasi") {
			t.Errorf("count %q", got)
		}
		other := res.Doc.Find(`[data-testid="flagged-callback"][data-ref="` + refs["student"] + `"]`)
		student := other.Find(`[data-testid="flagged-student"]`)
		if got := billsText(student.Find(`[data-testid="callback"]`)); !strings.Contains(got, "99999999") {
			t.Errorf("the callback's student %q", got)
		}
		if got := billsText(student.Find(`[data-testid="service"]`)); got != "Budi Santoso (NIS 2024002)" {
			t.Errorf("the service's student %q", got)
		}
		if got := billsText(other.Find(`[data-testid="flagged-total"] [data-testid="service"]`)); got != "Rp 40.000" {
			t.Errorf("the service's total %q", got)
		}
		diffs := billsText(other.Find(`[data-testid="flagged-differences"]`))
		for _, want := range []string{"NIS 99999999", "SPP Oktober (NIS 2024001) bukan bagian dari pembayaran ini", "Pramuka (NIS 2024002) dibayar dengan pembayaran ini"} {
			if !strings.Contains(diffs, want) {
				t.Errorf("differences %q lack %q", diffs, want)
			}
		}
		if got := billsText(other.Find(`[data-testid="flagged-status"]`)); got != "Tidak sesuai" {
			t.Errorf("status %q", got)
		}
		resent := res.Doc.Find(`[data-testid="flagged-callback"][data-ref="` + refs["resent"] + `"]`)
		if got := billsText(resent.Find(`[data-testid="flagged-student"] [data-testid="resent"]`)); got != "Siti Aminah (NIS 2024001)" {
			t.Errorf("the resend's student %q", got)
		}
		if got := billsText(resent.Find(`[data-testid="flagged-resent"]`)); !strings.Contains(got, "dikirim ulang 1 kali dengan isi lain") {
			t.Errorf("resend note %q", got)
		}
		date := res.Doc.Find(`[data-testid="flagged-callback"][data-ref="` + refs["date"] + `"]`)
		if got := billsText(date.Find(`[data-testid="flagged-paid"] [data-testid="callback"]`)); !strings.Contains(got, "2099") {
			t.Errorf("the callback's date %q", got)
		}
		if got := billsText(resent.Find(`[data-testid="flagged-status"]`)); got != "Dikirim ulang dengan isi lain" {
			t.Errorf("the resent one's status %q", got)
		}
		log := p.SignedIn(t, "admin").Get("/audit").Doc
		if got := billsText(auditRowOf(log, ledger.ActionCallbackDisputed).Find(`[data-testid="audit-words"]`)); !strings.HasPrefix(got, "Notifikasi pembayaran tidak sesuai dengan layanan — ") {
			t.Errorf("the audit log's words %q", got)
		}
		if got := billsText(auditRowOf(log, ledger.ActionCallbackResent).Find(`[data-testid="audit-words"]`)); got != "Notifikasi pembayaran dikirim ulang dengan isi lain — Budi Santoso (NIS 2024002)" {
			t.Errorf("the audit log's words %q", got)
		}
		if p.SignedIn(t, "finance").Get("/settings/data").StatusCode != http.StatusForbidden {
			t.Error("the data page is not for finance")
		}
	})
}
