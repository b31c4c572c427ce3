package whatsapp_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/messagesandbox"
	"github.com/sekolah/portal/internal/whatsapp"
)

const (
	token   = "sandbox-token"
	phoneID = "106540352242922"
	secret  = "app-secret"
)

// hook is the portal's side of the webhook in these tests: every delivery checked with
// the client's signature check and read with its parser.
type hook struct {
	client   *whatsapp.Client
	statuses chan whatsapp.Status
	inbound  chan whatsapp.Inbound
	refused  chan string
}

func (h *hook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if err := h.client.VerifySignature(body, r.Header.Get(whatsapp.SignatureHeader)); err != nil {
		h.refused <- r.Header.Get(whatsapp.SignatureHeader)
		http.Error(w, "bad signature", http.StatusUnauthorized)
		return
	}
	n, err := h.client.Parse(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	for _, s := range n.Statuses {
		h.statuses <- s
	}
	for _, m := range n.Messages {
		h.inbound <- m
	}
}

type fixture struct {
	sb     *messagesandbox.CloudAPI
	client *whatsapp.Client
	hook   *hook
}

// start runs the Cloud API sandbox and a webhook receiver over real HTTP, and a client of
// the sandbox; statusDelay 0 posts no status by itself.
func start(t *testing.T, statusDelay time.Duration, unapproved ...string) fixture {
	t.Helper()
	h := &hook{statuses: make(chan whatsapp.Status, 16), inbound: make(chan whatsapp.Inbound, 4), refused: make(chan string, 4)}
	hookSrv := httptest.NewServer(h)
	t.Cleanup(hookSrv.Close)
	sb := messagesandbox.NewCloudAPI(messagesandbox.Options{Token: token, PhoneNumberID: phoneID, AppSecret: secret,
		WebhookURL: hookSrv.URL, StatusDelay: statusDelay, Unapproved: unapproved})
	t.Cleanup(sb.Close)
	api := httptest.NewServer(sb)
	t.Cleanup(api.Close)
	c, err := whatsapp.New(whatsapp.Config{BaseURL: api.URL + "/v26.0", Token: token, PhoneNumberID: phoneID, AppSecret: secret})
	if err != nil {
		t.Fatal(err)
	}
	h.client = c
	return fixture{sb: sb, client: c, hook: h}
}

func (f fixture) status(t *testing.T) whatsapp.Status {
	t.Helper()
	select {
	case s := <-f.hook.statuses:
		return s
	case <-time.After(10 * time.Second):
		t.Fatal("no status came")
	}
	return whatsapp.Status{}
}

func TestSendTemplateAndStatuses(t *testing.T) {
	t.Parallel()
	f := start(t, 5*time.Millisecond)
	ctx := context.Background()
	sent, err := f.client.SendTemplate(ctx, "6281234567890", whatsapp.Template{Name: "kuitansi_pembayaran", Language: "id",
		Body: []string{"Budi Santoso", "Rp 350.000", "SPP November"}})
	if err != nil {
		t.Fatalf("SendTemplate: %v", err)
	}
	if sent.MessageID == "" || sent.WaID != "6281234567890" {
		t.Fatalf("sent = %+v", sent)
	}
	got := f.sb.Messages()
	if len(got) != 1 || got[0].ID != sent.MessageID || got[0].Template != "kuitansi_pembayaran" || got[0].Language != "id" ||
		!slices.Equal(got[0].Params, []string{"Budi Santoso", "Rp 350.000", "SPP November"}) {
		t.Fatalf("the sandbox recorded %+v", got)
	}
	// Statuses come signed, each read: sent, delivered, read.
	var seen []whatsapp.StatusKind
	for range 3 {
		s := f.status(t)
		if s.MessageID != sent.MessageID || s.RecipientID != "6281234567890" || s.At.IsZero() {
			t.Fatalf("status %+v", s)
		}
		seen = append(seen, s.Status)
	}
	slices.SortFunc(seen, func(a, b whatsapp.StatusKind) int { return a.Rank() - b.Rank() })
	if !slices.Equal(seen, []whatsapp.StatusKind{whatsapp.StatusSent, whatsapp.StatusDelivered, whatsapp.StatusRead}) {
		t.Fatalf("statuses %v", seen)
	}
}

func TestFailedStatusesCarryTypedErrors(t *testing.T) {
	t.Parallel()
	f := start(t, time.Millisecond)
	ctx := context.Background()
	// A number that is not on WhatsApp is accepted, then fails by webhook (131026).
	sent, err := f.client.SendTemplate(ctx, "6281200000000", whatsapp.Template{Name: "tagihan", Language: "id"})
	if err != nil {
		t.Fatal(err)
	}
	s := f.status(t)
	if s.MessageID != sent.MessageID || s.Status != whatsapp.StatusFailed || len(s.Errors) != 1 || !s.Errors[0].InvalidRecipient() {
		t.Fatalf("status of a number not on WhatsApp: %+v %v", s, s.Errors)
	}
	// A text outside the parent's window fails with 131047; after the parent writes, it goes.
	if _, err := f.client.SendText(ctx, "6281299999999", "Terima kasih", false); err != nil {
		t.Fatal(err)
	}
	if s := f.status(t); s.Status != whatsapp.StatusFailed || len(s.Errors) != 1 || !s.Errors[0].WindowClosed() || s.Errors[0].Temporary() {
		t.Fatalf("text outside the window: %+v %v", s, s.Errors)
	}
	if err := f.sb.Inbound(ctx, "6281299999999", "Halo, saya ingin bertanya"); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-f.hook.inbound:
		if m.From != "6281299999999" || m.Text != "Halo, saya ingin bertanya" || m.At.IsZero() {
			t.Fatalf("inbound %+v", m)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the parent's message was not posted")
	}
	if _, err := f.client.SendText(ctx, "6281299999999", "Terima kasih", false); err != nil {
		t.Fatal(err)
	}
	if s := f.status(t); s.Status == whatsapp.StatusFailed {
		t.Fatalf("text inside the window failed: %+v", s)
	}
}

func TestRefusalsAreTyped(t *testing.T) {
	t.Parallel()
	f := start(t, 0, "belum_disetujui")
	ctx := context.Background()
	tpl := whatsapp.Template{Name: "tagihan", Language: "id", Body: []string{"x"}}

	f.sb.Fail(1, http.StatusInternalServerError, whatsapp.CodeSomethingWrong, 0)
	_, err := f.client.SendTemplate(ctx, "6281234567890", tpl)
	e, ok := whatsapp.AsError(err)
	if !ok || e.HTTPStatus != 500 || e.Code != 131000 || e.Kind() != whatsapp.KindUnavailable || !e.Temporary() || e.MayHaveBeenSent() {
		t.Fatalf("a 500: %#v", err)
	}

	f.sb.Fail(1, http.StatusTooManyRequests, whatsapp.CodeThroughput, 7)
	_, err = f.client.SendTemplate(ctx, "6281234567890", tpl)
	if e, ok := whatsapp.AsError(err); !ok || !e.RateLimited() || !e.Temporary() || e.RetryAfter != 7*time.Second || e.TraceID == "" {
		t.Fatalf("a 429: %#v", err)
	}

	_, err = f.client.SendTemplate(ctx, "6281234567890", whatsapp.Template{Name: "belum_disetujui", Language: "id"})
	if e, ok := whatsapp.AsError(err); !ok || !e.TemplateProblem() || e.Temporary() || e.Details == "" {
		t.Fatalf("a template not approved: %#v", err)
	}

	if _, err := f.client.SendTemplate(ctx, "0812345", tpl); !isKind(err, whatsapp.KindInvalidRecipient) {
		t.Fatalf("a malformed number: %v", err)
	}
	if len(f.sb.Messages()) != 0 {
		t.Fatalf("refused messages were recorded: %+v", f.sb.Messages())
	}

	// A wrong token: 401, code 190.
	api := httptest.NewServer(f.sb)
	defer api.Close()
	bad, err := whatsapp.New(whatsapp.Config{BaseURL: api.URL + "/v26.0", Token: "stale", PhoneNumberID: phoneID, AppSecret: secret})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bad.SendTemplate(ctx, "6281234567890", tpl); !isKind(err, whatsapp.KindUnauthorized) {
		t.Fatalf("a wrong token: %v", err)
	}

	// What a proxy in front answers (no Graph error body) is read from its status.
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "<html>502 Bad Gateway</html>", http.StatusBadGateway)
	}))
	defer proxy.Close()
	viaProxy, _ := whatsapp.New(whatsapp.Config{BaseURL: proxy.URL, Token: token, PhoneNumberID: phoneID, AppSecret: secret})
	if _, err := viaProxy.SendTemplate(ctx, "6281234567890", tpl); !isKind(err, whatsapp.KindUnavailable) {
		t.Fatalf("a proxy's 502: %v", err)
	}
	// No answer at all: may have been sent.
	proxy.Close()
	_, err = viaProxy.SendTemplate(ctx, "6281234567890", tpl)
	if e, ok := whatsapp.AsError(err); !ok || !e.MayHaveBeenSent() || !e.Temporary() {
		t.Fatalf("no answer: %#v", err)
	}
}

func isKind(err error, k whatsapp.Kind) bool {
	e, ok := whatsapp.AsError(err)
	return ok && e.Kind() == k
}

func TestWebhookSignatureRefusedWhenWrong(t *testing.T) {
	t.Parallel()
	body := []byte(`{"object":"whatsapp_business_account","entry":[]}`)
	good := whatsapp.Sign(secret, body)
	if err := whatsapp.VerifySignature(secret, body, good); err != nil {
		t.Fatalf("the right signature refused: %v", err)
	}
	for name, tc := range map[string]struct {
		body   []byte
		header string
	}{
		"another secret": {body, whatsapp.Sign("someone-else", body)},
		"body changed":   {append(slices.Clone(body), ' '), good},
		"no header":      {body, ""},
		"no prefix":      {body, good[len("sha256="):]},
		"sha1":           {body, "sha1=" + good[len("sha256="):]},
		"not hex":        {body, "sha256=zz"},
	} {
		if err := whatsapp.VerifySignature(secret, tc.body, tc.header); !errors.Is(err, whatsapp.ErrBadSignature) {
			t.Errorf("%s: %v, want ErrBadSignature", name, err)
		}
	}
	if err := whatsapp.VerifySignature("", body, whatsapp.Sign("", body)); !errors.Is(err, whatsapp.ErrBadSignature) {
		t.Errorf("an empty secret checks nothing: %v", err)
	}

	// Over the wire: a delivery signed with another app's secret is refused by the hook.
	f := start(t, 0)
	other := messagesandbox.NewCloudAPI(messagesandbox.Options{Token: token, PhoneNumberID: phoneID, AppSecret: "another-app",
		WebhookURL: hookURL(t, f)})
	defer other.Close()
	api := httptest.NewServer(other)
	defer api.Close()
	c, _ := whatsapp.New(whatsapp.Config{BaseURL: api.URL, Token: token, PhoneNumberID: phoneID, AppSecret: "another-app"})
	sent, err := c.SendTemplate(context.Background(), "6281234567890", whatsapp.Template{Name: "t", Language: "id"})
	if err != nil {
		t.Fatal(err)
	}
	if err := other.PostStatus(context.Background(), sent.MessageID, "delivered", 0); err == nil {
		t.Fatal("the hook took a delivery signed with another secret")
	}
	select {
	case <-f.hook.refused:
	default:
		t.Fatal("the hook did not refuse the signature")
	}
	if len(f.hook.statuses) != 0 {
		t.Fatal("a status of a refused delivery was read")
	}
}

// hookURL is the fixture's webhook address, read back from a status it posts.
func hookURL(t *testing.T, f fixture) string {
	t.Helper()
	srv := httptest.NewServer(f.hook)
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestHandshake(t *testing.T) {
	t.Parallel()
	c, err := whatsapp.New(whatsapp.Config{BaseURL: "https://graph.facebook.com/v26.0", Token: token, PhoneNumberID: phoneID, AppSecret: secret,
		VerifyToken: "kata-rahasia"})
	if err != nil {
		t.Fatal(err)
	}
	q := func(mode, tok, challenge string) url.Values {
		return url.Values{"hub.mode": {mode}, "hub.verify_token": {tok}, "hub.challenge": {challenge}}
	}
	if got, ok := c.Handshake(q("subscribe", "kata-rahasia", "1158201444")); !ok || got != "1158201444" {
		t.Fatalf("the right token: %q %v", got, ok)
	}
	for _, bad := range []url.Values{q("subscribe", "salah", "1"), q("unsubscribe", "kata-rahasia", "1"), q("subscribe", "", "1"),
		q("subscribe", "kata-rahasia", "")} {
		if got, ok := c.Handshake(bad); ok || got != "" {
			t.Errorf("%v answered %q", bad, got)
		}
	}
	// Without a configured verify token, one derived from the app secret: stable, not the secret.
	d, _ := whatsapp.New(whatsapp.Config{BaseURL: "https://graph.facebook.com/v26.0", Token: token, PhoneNumberID: phoneID, AppSecret: secret})
	if d.VerifyToken() != whatsapp.DeriveVerifyToken(secret) || d.VerifyToken() == secret || len(d.VerifyToken()) != 32 {
		t.Fatalf("derived verify token %q", d.VerifyToken())
	}
}

func TestParseKeepsOnlyTheNumbersStatuses(t *testing.T) {
	t.Parallel()
	body := []byte(`{"object":"whatsapp_business_account","entry":[{"id":"1","changes":[
	 {"field":"messages","value":{"messaging_product":"whatsapp","metadata":{"display_phone_number":"1","phone_number_id":"` + phoneID + `"},
	  "statuses":[{"id":"wamid.A","status":"delivered","timestamp":"1764288000","recipient_id":"6281"},
	              {"id":"wamid.B","status":"failed","timestamp":"1764288001","recipient_id":"6282",
	               "errors":[{"code":131047,"title":"Re-engagement message","error_data":{"details":"24 hours"}}]},
	              {"id":"wamid.C","status":"deleted","timestamp":"1764288002"}]}},
	 {"field":"messages","value":{"metadata":{"phone_number_id":"999"},"statuses":[{"id":"wamid.X","status":"read","timestamp":"1"}]}},
	 {"field":"message_template_status_update","value":{"event":"APPROVED"}}]}]}`)
	n, err := whatsapp.Parse(body, phoneID)
	if err != nil {
		t.Fatal(err)
	}
	if len(n.Statuses) != 2 || n.Statuses[0].MessageID != "wamid.A" || n.Statuses[0].At != time.Unix(1764288000, 0).UTC() {
		t.Fatalf("statuses %+v", n.Statuses)
	}
	if e := n.Statuses[1].Errors; len(e) != 1 || !e[0].WindowClosed() || e[0].Message != "Re-engagement message" || e[0].Details != "24 hours" {
		t.Fatalf("failed status errors %+v", e)
	}
	if _, err := whatsapp.Parse([]byte(`{"object":"page","entry":[]}`), phoneID); err == nil {
		t.Fatal("another object read as WhatsApp's")
	}
}
