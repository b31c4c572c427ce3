package web_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/sandbox"
	"github.com/sekolah/portal/internal/store"
)

// sandboxPost calls a /_sandbox route of the portal's sandbox, as the service's operator
// (or a bank) would act on it.
func sandboxPost(p *portaltest.Portal, path string, body any) error {
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, p.SandboxURL+path, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.SetBasicAuth("portal", sandbox.DailyPassword("issued-secret", p.Sandbox.Now(), p.Sandbox.Location()))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode/100 != 2 {
		return fmt.Errorf("POST %s: %d %s", path, res.StatusCode, raw)
	}
	return nil
}

// postCallback sends a payment callback to the portal's route as the service would.
func postCallback(t *testing.T, p *portaltest.Portal, signature string, body []byte) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, p.URL+"/hooks/payments", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if signature != "" {
		req.Header.Set(billing.CallbackHeader, signature)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// The payment callback route: outside sessions and CSRF; a refused signature is a 401
// with nothing stored; a good one is stored once however often it comes, audited, and
// shows on the pages at once (no sync).
func TestPaymentCallbackRoute(t *testing.T) {
	t.Parallel()
	p, s := startBills(t)
	// A bank payment the service announces: the route stores it.
	if err := sandboxPost(p, "/_sandbox/bank-payment", map[string]any{"bill_key": "2024001", "bill_component_list": []string{s.id("SPP Oktober")},
		"merchant_name": "Alfamart"}); err != nil {
		t.Fatal(err)
	}
	p.AwaitCallbacks(t)
	cbs := p.Sandbox.Callbacks()
	cb := cbs[len(cbs)-1]
	if !cb.Delivered || cb.Attempts[len(cb.Attempts)-1].Status != http.StatusOK {
		t.Fatalf("callback not delivered: %+v", cb)
	}
	c := p.SignedIn(t, "finance")
	res := c.Get("/bills?state=paid")
	if row := billRow(res.Doc, s.id("SPP Oktober")); row.AttrOr("data-status", "") != "paid" || !strings.Contains(billsText(row), "Rp 275.000") {
		t.Errorf("paid at the bank, not on the bills page: %q", billsText(row))
	}
	audit, _, err := p.DB.ListAudit(t.Context(), store.AuditFilter{Action: "ledger.callback", Limit: 5})
	if err != nil || len(audit) != 1 || audit[0].Target != "2024001" {
		t.Fatalf("audit of the callback: %+v %v", audit, err)
	}

	// The same callback again (the service's answer was lost): stored once.
	if code, body := postCallback(t, p, cb.Signature, cb.Body); code != http.StatusOK || body != "stored\n" {
		t.Errorf("the same callback again: %d %q", code, body)
	}
	stored, err := p.App.Ledger.Callbacks(t.Context(), 10)
	if err != nil || len(stored) != 1 || stored[0].Deliveries != 2 {
		t.Errorf("stored callbacks: %+v %v", stored, err)
	}
	if audit, _, _ := p.DB.ListAudit(t.Context(), store.AuditFilter{Action: "ledger.callback", Limit: 5}); len(audit) != 1 {
		t.Errorf("a replay was audited again: %d entries", len(audit))
	}

	// A forged one (a body the service did not sign): 401, nothing stored.
	forged := bytes.Replace(cb.Body, []byte(cb.RefNumber), []byte("FORGED-1"), 1)
	seq, _ := p.App.Ledger.ChangeSeq(t.Context())
	for _, sig := range []string{cb.Signature, "", strings.Repeat("0", 64)} {
		if code, _ := postCallback(t, p, sig, forged); code != http.StatusUnauthorized {
			t.Errorf("forged callback (signature %q): %d", sig, code)
		}
	}
	if code, _ := postCallback(t, p, cb.Signature, []byte("{not json")); code != http.StatusUnauthorized {
		t.Errorf("unreadable callback: %d", code)
	}
	if stored, _ := p.App.Ledger.Callbacks(t.Context(), 10); len(stored) != 1 {
		t.Errorf("a refused callback was stored: %d", len(stored))
	}
	if after, _ := p.App.Ledger.ChangeSeq(t.Context()); after != seq {
		t.Error("a refused callback changed the ledger")
	}
	// Too large to be a callback.
	if code, _ := postCallback(t, p, cb.Signature, bytes.Repeat([]byte(" "), 300<<10)); code != http.StatusRequestEntityTooLarge {
		t.Errorf("a huge body: %d", code)
	}
	// Only POST, and no session needed (the signature is the proof): GET is not a route.
	if res, err := http.Get(p.URL + "/hooks/payments"); err != nil || res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /hooks/payments: %v %v", res.StatusCode, err)
	}
}
