package web_test

import (
	"bytes"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/whatsapp"
)

// Settings → Messages with the embedded sandboxes: the channels say "sandbox", a test
// message goes out over the real Cloud API client to the sandbox, its statuses come back
// signed to /hooks/whatsapp and the sent list shows them; e-mail goes over SMTP.
func TestMessagesSettingsAndSentList(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: billsNow, Messages: true})
	admin := p.SignedIn(t, "admin")

	page := admin.Get("/settings/messages")
	if page.StatusCode != http.StatusOK {
		t.Fatalf("settings: %d", page.StatusCode)
	}
	for _, ch := range []string{"channel-whatsapp", "channel-email"} {
		if got := billsText(page.Doc.Find(`[data-testid="` + ch + `"]`)); !strings.Contains(got, "sandbox") {
			t.Errorf("%s: %q", ch, got)
		}
	}
	if strings.Contains(page.Body, "sandbox-token") || strings.Contains(page.Body, "sandbox-app-secret") {
		t.Error("the page shows the token or the secret")
	}
	if got := page.Doc.Find(`#f-template_receipt`).AttrOr("value", ""); got != "kuitansi_pembayaran" {
		t.Errorf("receipt template %q", got)
	}

	// A test message by WhatsApp: the number by the students' rule, sent, then delivered
	// and read by the webhook.
	res := admin.Post("/settings/messages/test", url.Values{"channel": {"whatsapp"}, "to": {"0812-3456-7890"}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/settings/messages/sent" {
		t.Fatalf("test: %d %q", res.StatusCode, billsText(res.Doc.Find(`[data-testid="test-error"]`)))
	}
	got := p.WhatsApp.Messages()
	if len(got) != 1 || got[0].To != "6281234567890" || got[0].Template != "hello_world" || got[0].Language != "en_US" {
		t.Fatalf("the sandbox received %+v", got)
	}
	waitStatus(t, p, "read")
	sent := admin.Get("/settings/messages/sent").Doc
	row := sent.Find(`[data-testid="sent-row"]`)
	if row.Length() != 1 || billsText(row.Find(`[data-testid="sent-to"]`)) != "6281234567890" ||
		billsText(row.Find(`[data-testid="sent-status"]`)) != "dibaca" || !strings.Contains(billsText(row.Find(`[data-testid="sent-text"]`)), "pesan uji") {
		t.Errorf("sent row %q", billsText(row))
	}
	if sent.Find(`[data-testid="sent-sandbox"]`).Length() != 1 {
		t.Error("the sandbox is not said")
	}

	// By e-mail, over SMTP.
	res = admin.Post("/settings/messages/test", url.Values{"channel": {"email"}, "to": {"bendahara@example.id"}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("test e-mail: %d %q", res.StatusCode, billsText(res.Doc.Find(`[data-testid="test-error"]`)))
	}
	if m := p.Mail.Mails(); len(m) != 1 || m[0].To[0] != "bendahara@example.id" || !strings.Contains(m[0].Subject, "Pesan uji") {
		t.Fatalf("the mail sandbox received %+v", m)
	}
	ms, _, _ := p.DB.Messages(t.Context(), store.MessageFilter{Channel: "email"})
	if len(ms) != 1 || ms[0].ProviderID != p.Mail.Mails()[0].QueueID || !strings.Contains(ms[0].Answer, "queued as") {
		t.Errorf("the server's answer is not kept: %+v", ms)
	}

	// A 429 from the Cloud API: said in words, recorded as failed; a bad number is refused first.
	p.WhatsApp.Fail(1, http.StatusTooManyRequests, 130429, 30)
	res = admin.Post("/settings/messages/test", url.Values{"channel": {"whatsapp"}, "to": {"081234567891"}})
	if res.StatusCode != http.StatusBadGateway || !strings.Contains(billsText(res.Doc.Find(`[data-testid="test-error"]`)), "membatasi") ||
		res.Doc.Find(`#f-to`).AttrOr("value", "") != "081234567891" {
		t.Errorf("429: %d %q", res.StatusCode, billsText(res.Doc.Find(`[data-testid="test-error"]`)))
	}
	if res := admin.Post("/settings/messages/test", url.Values{"channel": {"whatsapp"}, "to": {"022-7654321"}}); res.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("a landline: %d", res.StatusCode)
	}
	es, _, _ := p.DB.ListAudit(t.Context(), store.AuditFilter{Action: "messages.test"})
	if len(es) != 3 {
		t.Errorf("%d test messages audited", len(es))
	}

	// Templates: a wrong name is refused with what was typed kept; principals may not.
	res = admin.Post("/settings/messages", url.Values{"template_receipt": {"Kuitansi Baru"}, "language_receipt": {"id"}})
	if res.StatusCode != http.StatusUnprocessableEntity || res.Doc.Find(`#f-template_receipt`).AttrOr("value", "") != "Kuitansi Baru" ||
		res.Doc.Find(`#f-template_receipt-error`).Length() != 1 {
		t.Errorf("bad template: %d", res.StatusCode)
	}
	if res := admin.Post("/settings/messages", url.Values{"template_receipt": {"kuitansi_v2"}, "language_receipt": {"id"}}); res.StatusCode != http.StatusSeeOther {
		t.Errorf("save templates: %d", res.StatusCode)
	}
	if got := admin.Get("/settings/messages").Doc.Find(`#f-template_receipt`).AttrOr("value", ""); got != "kuitansi_v2" {
		t.Errorf("saved template %q", got)
	}
	for _, role := range []string{"principal", "finance"} {
		c := p.SignedIn(t, role)
		if res := c.Get("/settings/messages/sent"); res.StatusCode != http.StatusForbidden {
			t.Errorf("%s sees the sent messages: %d", role, res.StatusCode)
		}
		if res := c.Post("/settings/messages/test", url.Values{"channel": {"email"}, "to": {"a@b.id"}}); res.StatusCode != http.StatusForbidden {
			t.Errorf("%s sends a test: %d", role, res.StatusCode)
		}
	}
}

func waitStatus(t *testing.T, p *portaltest.Portal, status string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ms, _, err := p.DB.Messages(t.Context(), store.MessageFilter{Channel: "whatsapp"})
		if err == nil && len(ms) > 0 && ms[0].Status == status {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s status: %+v %v", status, ms, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// The webhook: the subscription check answers only the right verify token; a delivery
// with a wrong signature is refused and changes nothing; a signed one moves a message on,
// never back.
func TestWhatsAppWebhook(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: billsNow, Messages: true})
	c := p.NewClient(t)
	verify := whatsapp.DeriveVerifyToken("sandbox-app-secret")
	if res := c.Get("/hooks/whatsapp?hub.mode=subscribe&hub.verify_token=" + verify + "&hub.challenge=4242"); res.StatusCode != http.StatusOK || res.Body != "4242" {
		t.Errorf("handshake: %d %q", res.StatusCode, res.Body)
	}
	if res := c.Get("/hooks/whatsapp?hub.mode=subscribe&hub.verify_token=wrong&hub.challenge=4242"); res.StatusCode != http.StatusForbidden || strings.Contains(res.Body, "4242") {
		t.Errorf("wrong verify token: %d %q", res.StatusCode, res.Body)
	}
	if got := p.SignedIn(t, "admin").Get("/settings/messages").Doc.Find(`[data-testid="verify-token"]`).Length(); got != 0 {
		t.Error("the sandbox's verify token is shown as if it were to be typed somewhere")
	}

	if _, err := p.DB.AddMessage(t.Context(), store.Message{Channel: "whatsapp", Kind: "test", Recipient: "6281", ProviderID: "wamid.X1",
		Status: "sent", StatusRank: 1}, nil); err != nil {
		t.Fatal(err)
	}
	post := func(body, sig string) int {
		req, _ := http.NewRequest(http.MethodPost, p.URL+"/hooks/whatsapp", bytes.NewBufferString(body))
		req.Header.Set("Content-Type", "application/json")
		if sig != "" {
			req.Header.Set(whatsapp.SignatureHeader, sig)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	status := func(s string) string {
		return `{"object":"whatsapp_business_account","entry":[{"id":"1","changes":[{"field":"messages","value":{"messaging_product":"whatsapp",` +
			`"metadata":{"phone_number_id":"100000000000001"},"statuses":[{"id":"wamid.X1","status":"` + s + `","timestamp":"1795402800","recipient_id":"6281"}]}}]}]}`
	}
	for name, sig := range map[string]string{"none": "", "another secret": whatsapp.Sign("other", []byte(status("read"))), "garbage": "sha256=00"} {
		if code := post(status("read"), sig); code != http.StatusUnauthorized {
			t.Errorf("signature %s: %d", name, code)
		}
	}
	ms, _, _ := p.DB.Messages(t.Context(), store.MessageFilter{})
	if ms[0].Status != "sent" {
		t.Fatalf("a refused delivery changed the message: %s", ms[0].Status)
	}
	if code := post(status("read"), whatsapp.Sign("sandbox-app-secret", []byte(status("read")))); code != http.StatusOK {
		t.Fatalf("signed delivery: %d", code)
	}
	if code := post(status("delivered"), whatsapp.Sign("sandbox-app-secret", []byte(status("delivered")))); code != http.StatusOK {
		t.Fatalf("signed delivery: %d", code)
	}
	ms, _, _ = p.DB.Messages(t.Context(), store.MessageFilter{})
	if ms[0].Status != "read" {
		t.Errorf("a late 'delivered' moved the message back: %s", ms[0].Status)
	}
}
