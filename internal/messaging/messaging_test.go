package messaging_test

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/mail"
	"github.com/sekolah/portal/internal/messagesandbox"
	"github.com/sekolah/portal/internal/messaging"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/store/storetest"
	"github.com/sekolah/portal/internal/whatsapp"
)

func service(t *testing.T) (*messaging.Service, *messagesandbox.CloudAPI, *messagesandbox.SMTP) {
	t.Helper()
	api := messagesandbox.NewCloudAPI(messagesandbox.Options{Token: "tok", PhoneNumberID: "1", AppSecret: "sec"})
	srv := httptest.NewServer(api)
	t.Cleanup(func() { srv.Close(); api.Close() })
	wa, err := whatsapp.New(whatsapp.Config{BaseURL: srv.URL, Token: "tok", PhoneNumberID: "1", AppSecret: "sec"})
	if err != nil {
		t.Fatal(err)
	}
	sb, err := messagesandbox.StartSMTP("127.0.0.1:0", messagesandbox.SMTPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	host, port, _ := net.SplitHostPort(sb.Addr())
	clk := clock.Fixed(time.Date(2026, 11, 28, 1, 30, 0, 0, time.UTC), i18n.Jakarta())
	m, err := mail.New(mail.Config{Host: host, Port: port, From: "keuangan@smp.sch.id", Now: clk.Func()})
	if err != nil {
		t.Fatal(err)
	}
	return &messaging.Service{DB: storetest.OpenTest(t), WhatsApp: wa, Mail: m, Clock: clk}, api, sb
}

// Compose fills the WhatsApp template's fields and the e-mail's text from the same values.
func TestCompose(t *testing.T) {
	t.Parallel()
	c, err := messaging.Compose(messaging.KindReceipt, "SMP Nusantara", "Budi Santoso", "Rp 350.000", "SPP November", "https://portal.example/p/abc")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Fields) != 4 || !strings.Contains(c.Text, "Rp 350.000 untuk SPP November") || !strings.Contains(c.Text, "https://portal.example/p/abc") ||
		!strings.Contains(c.Text, "Bagian Keuangan SMP Nusantara") || c.Subject != "SMP Nusantara: pembayaran Budi Santoso diterima" {
		t.Fatalf("%+v", c)
	}
	if _, err := messaging.Compose(messaging.KindReceipt, "SMP", "only one"); err == nil {
		t.Fatal("a receipt with one field composed")
	}
}

// Send's failures are typed for the outbox: a 500 and a 429 may be retried (the 429 after
// what it asked), a number not on WhatsApp and a permanent SMTP refusal may not, a busy
// mailbox may; each failure is recorded as failed.
func TestSendFailuresAreTyped(t *testing.T) {
	t.Parallel()
	s, api, sb := service(t)
	ctx := t.Context()
	c, _ := messaging.Compose(messaging.KindFollowUp, "SMP", "Budi", "2", "Rp 700.000", "https://x/p/1")
	wa := messaging.Outgoing{Channel: messaging.WhatsApp, Content: c, NIS: "1001", To: "6281234567890", Actor: "portal"}

	api.Fail(1, http.StatusInternalServerError, whatsapp.CodeSomethingWrong, 0)
	_, err := s.Send(ctx, wa)
	if e, ok := messaging.AsSendError(err); !ok || !e.Retryable || e.Code != "131000" || e.Key != "messages.err.unavailable" {
		t.Fatalf("500: %#v", err)
	}
	api.Fail(1, http.StatusTooManyRequests, whatsapp.CodeThroughput, 12)
	_, err = s.Send(ctx, wa)
	if e, ok := messaging.AsSendError(err); !ok || !e.Retryable || e.RetryAfter != 12*time.Second {
		t.Fatalf("429: %#v", err)
	}
	rec, err := s.Send(ctx, wa)
	if err != nil || rec.ProviderID == "" || rec.Status != "sent" {
		t.Fatalf("sent: %+v %v", rec, err)
	}
	if got := api.Messages(); len(got) != 1 || got[0].Template != "tunggakan_sekolah" || strings.Join(got[0].Params, "|") != "Budi|2|Rp 700.000|https://x/p/1" {
		t.Fatalf("the sandbox received %+v", got)
	}

	em := messaging.Outgoing{Channel: messaging.Email, Content: c, To: "ortu@example.id"}
	sb.Fail(1, 451, [3]int{4, 2, 1}, "Mailbox busy")
	if _, err := s.Send(ctx, em); !retryable(err, true) {
		t.Fatalf("4xx: %#v", err)
	}
	sb.Fail(1, 550, [3]int{5, 1, 1}, "No such user")
	if _, err := s.Send(ctx, em); !retryable(err, false) {
		t.Fatalf("5xx: %#v", err)
	}
	ms, total, err := s.DB.Messages(ctx, store.MessageFilter{})
	if err != nil || total != 5 {
		t.Fatalf("%d recorded, %v", total, err)
	}
	failed := 0
	for _, m := range ms {
		if m.Status == "failed" {
			failed++
		}
	}
	if failed != 4 || ms[0].ErrorCode != "550 5.1.1" {
		t.Errorf("%d failed recorded; last %+v", failed, ms[0])
	}

	// A channel not configured sends nothing and records nothing.
	s.Mail = nil
	if _, err := s.Send(ctx, em); !errors.Is(err, messaging.ErrNoChannel) {
		t.Fatalf("no channel: %v", err)
	}
}

func retryable(err error, want bool) bool {
	e, ok := messaging.AsSendError(err)
	return ok && e.Retryable == want
}
