package mail_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/mail"
	"github.com/sekolah/portal/internal/messagesandbox"
)

func now() time.Time { return time.Date(2026, 11, 28, 1, 30, 0, 0, time.UTC) }

func start(t *testing.T, user, pass string) (*messagesandbox.SMTP, mail.Config) {
	t.Helper()
	sb, err := messagesandbox.StartSMTP("127.0.0.1:0", messagesandbox.SMTPOptions{Username: user, Password: pass})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	host, port, _ := net.SplitHostPort(sb.Addr())
	return sb, mail.Config{Host: host, Port: port, Username: user, Password: pass, From: "Keuangan SMP Nusantara <keuangan@smp-nusantara.sch.id>", Now: now}
}

func TestSendKeepsTheServersAnswer(t *testing.T) {
	t.Parallel()
	sb, cfg := start(t, "portal", "rahasia")
	c, err := mail.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Send(context.Background(), mail.Message{To: "siti.rahma@example.id", ToName: "Ibu Siti Rahmawati",
		Subject: "Kuitansi pembayaran — Budi Santoso", Text: "Terima kasih, Bapak/Ibu.\nPembayaran Rp 350.000 sudah kami terima.",
		HTML: "<p>Terima kasih, Bapak/Ibu.</p><p>Pembayaran <b>Rp&nbsp;350.000</b> sudah kami terima.</p>"})
	if err != nil {
		t.Fatalf("Send: %v", err)
	}
	got := sb.Mails()
	if len(got) != 1 {
		t.Fatalf("the server has %d messages", len(got))
	}
	m := got[0]
	if r.QueueID == "" || r.QueueID != m.QueueID || !strings.Contains(r.Answer, m.QueueID) || !strings.HasPrefix(r.MessageID, "<") {
		t.Fatalf("receipt %+v, server's id %q", r, m.QueueID)
	}
	if m.From != "keuangan@smp-nusantara.sch.id" || len(m.To) != 1 || m.To[0] != "siti.rahma@example.id" || m.AuthUser != "portal" {
		t.Fatalf("envelope %+v", m)
	}
	// The subject's dash and the body survive UTF-8 encoding; both alternatives are there.
	if m.Subject != "Kuitansi pembayaran — Budi Santoso" || !strings.Contains(m.Text, "Pembayaran Rp 350.000 sudah kami terima.") ||
		!strings.Contains(m.HTML, "<b>Rp&nbsp;350.000</b>") {
		t.Fatalf("decoded: subject %q text %q html %q", m.Subject, m.Text, m.HTML)
	}
	raw := string(m.Raw)
	for _, want := range []string{"Date: Sat, 28 Nov 2026 01:30:00 +0000", "Message-ID: " + r.MessageID, "MIME-Version: 1.0",
		`To: "Ibu Siti Rahmawati" <siti.rahma@example.id>`, "multipart/alternative"} {
		if !strings.Contains(raw, want) {
			t.Errorf("the message lacks %q:\n%s", want, raw)
		}
	}
}

func TestTemporaryAndPermanentRefusals(t *testing.T) {
	t.Parallel()
	sb, cfg := start(t, "", "")
	c, err := mail.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	msg := mail.Message{To: "ortu@example.id", Subject: "Tagihan", Text: "…"}

	sb.Fail(1, 451, [3]int{4, 3, 0}, "Mailbox busy, try again later")
	_, err = c.Send(ctx, msg)
	e, ok := mail.AsError(err)
	if !ok || e.Code != 451 || e.Enhanced != "4.3.0" || !e.Temporary() || e.Permanent() || e.Stage != "rcpt" {
		t.Fatalf("a 4xx: %#v", err)
	}
	sb.Fail(1, 550, [3]int{5, 1, 1}, "No such user here")
	_, err = c.Send(ctx, msg)
	if e, ok := mail.AsError(err); !ok || e.Code != 550 || e.Enhanced != "5.1.1" || !e.Permanent() || e.Temporary() {
		t.Fatalf("a 5xx: %#v", err)
	}
	if len(sb.Mails()) != 0 {
		t.Fatalf("refused messages were kept: %d", len(sb.Mails()))
	}
	if _, err := c.Send(ctx, msg); err != nil {
		t.Fatalf("after the refusals: %v", err)
	}

	// Wrong credentials: refused for good at AUTH.
	_, authCfg := start(t, "portal", "rahasia")
	authCfg.Password = "salah"
	bad, _ := mail.New(authCfg)
	if _, err := bad.Send(ctx, msg); !isPermanent(err, "auth") {
		t.Fatalf("wrong password: %v", err)
	}
	// No server there: temporary, at connect.
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	host, port, _ := net.SplitHostPort(addr)
	gone, _ := mail.New(mail.Config{Host: host, Port: port, From: "a@b.id", Now: now, Timeout: 5 * time.Second})
	if _, err := gone.Send(ctx, msg); err == nil {
		t.Fatal("sent to nobody")
	} else if e, ok := mail.AsError(err); !ok || !e.Temporary() || e.Stage != "connect" {
		t.Fatalf("no server: %#v", err)
	}
	// A recipient that is no address is refused before any connection.
	if _, err := c.Send(ctx, mail.Message{To: "bukan alamat", Subject: "x", Text: "y"}); !isPermanent(err, "rcpt") {
		t.Fatalf("not an address: %v", err)
	}
}

func isPermanent(err error, stage string) bool {
	e, ok := mail.AsError(err)
	return ok && e.Permanent() && e.Stage == stage
}

// STARTTLS is used when the server offers it, and required from then on.
func TestStartTLSWhereOffered(t *testing.T) {
	t.Parallel()
	cert, pool := selfSigned(t)
	sb, err := messagesandbox.StartSMTP("127.0.0.1:0", messagesandbox.SMTPOptions{Username: "portal", Password: "rahasia",
		TLS: &tls.Config{Certificates: []tls.Certificate{cert}}})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	host, port, _ := net.SplitHostPort(sb.Addr())
	c, err := mail.New(mail.Config{Host: host, Port: port, Username: "portal", Password: "rahasia", From: "a@smp.sch.id", Now: now,
		TLS: &tls.Config{RootCAs: pool, ServerName: "sandbox.invalid"}})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := c.Send(context.Background(), mail.Message{To: "ortu@example.id", Subject: "x", Text: "y"}); err != nil {
			t.Fatalf("Send: %v", err)
		}
	}
	for _, m := range sb.Mails() {
		if !m.TLS || m.AuthUser != "portal" {
			t.Fatalf("a message came without TLS or auth: %+v", m)
		}
	}
	// A certificate the client does not trust: refused, nothing sent in clear.
	strict, _ := mail.New(mail.Config{Host: host, Port: port, From: "a@smp.sch.id", Now: now})
	if _, err := strict.Send(context.Background(), mail.Message{To: "ortu@example.id", Subject: "x", Text: "y"}); err == nil {
		t.Fatal("sent over an untrusted certificate")
	}
	if len(sb.Mails()) != 2 {
		t.Fatalf("%d messages", len(sb.Mails()))
	}
}

func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "sandbox.invalid"},
		DNSNames: []string{"sandbox.invalid"}, NotBefore: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), NotAfter: time.Date(2120, 1, 1, 0, 0, 0, 0, time.UTC),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tpl, tpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

func TestPlainTextOnly(t *testing.T) {
	t.Parallel()
	sb, cfg := start(t, "", "")
	c, _ := mail.New(cfg)
	if _, err := c.Send(context.Background(), mail.Message{To: "ortu@example.id", Subject: "Pengingat", Text: "Baris satu\nBaris dua: Rp 1.250.000"}); err != nil {
		t.Fatal(err)
	}
	m := sb.Mails()[0]
	if m.HTML != "" || strings.TrimRight(m.Text, "\r\n") != "Baris satu\r\nBaris dua: Rp 1.250.000" || !strings.Contains(string(m.Raw), `text/plain; charset="utf-8"`) {
		t.Fatalf("text %q html %q", m.Text, m.HTML)
	}
}

func TestNewRefusesBadConfig(t *testing.T) {
	t.Parallel()
	for _, cfg := range []mail.Config{
		{Port: "25", From: "a@b.id", Now: now},
		{Host: "x", Port: "25", From: "not an address", Now: now},
		{Host: "x", Port: "25", From: "a@b.id"},
	} {
		if _, err := mail.New(cfg); err == nil {
			t.Errorf("%+v accepted", cfg)
		}
	}
}
