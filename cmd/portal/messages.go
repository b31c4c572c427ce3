package main

import (
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/sekolah/portal/internal/config"
	"github.com/sekolah/portal/internal/messagesandbox"
	"github.com/sekolah/portal/internal/messaging"
)

// startMessageSandboxes runs the embedded message sandboxes the configuration asks for
// (with the embedded payment sandbox, each channel not configured): a Cloud API on a
// loopback port that posts its statuses, signed, to the portal's own webhook, and an SMTP
// server; cfg is pointed at them, so the portal sends through its real clients. Nothing
// leaves the machine. It returns the channels sandboxed and how to stop them.
func startMessageSandboxes(cfg *config.Config, webhook string, log *slog.Logger) (map[messaging.Channel]bool, func(), error) {
	wa, smtp := cfg.MessageSandboxes()
	sandboxed := map[messaging.Channel]bool{}
	var closers []func()
	closeAll := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	if wa {
		token, secret := rand.Text(), rand.Text()
		api := messagesandbox.NewCloudAPI(messagesandbox.Options{Token: token, PhoneNumberID: "100000000000001", AppSecret: secret,
			WebhookURL: webhook, StatusDelay: 2 * time.Second, Logger: log.With("component", "whatsapp-sandbox")})
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, nil, fmt.Errorf("start the WhatsApp sandbox: %w", err)
		}
		srv := &http.Server{Handler: api, ReadHeaderTimeout: 10 * time.Second}
		go func() {
			if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				log.Error("WhatsApp sandbox stopped", "err", err)
			}
		}()
		closers = append(closers, func() { _ = srv.Close(); api.Close() })
		cfg.WhatsApp = config.WhatsApp{URL: "http://" + ln.Addr().String() + "/v26.0", Token: token, PhoneID: "100000000000001", AppSecret: secret}
		sandboxed[messaging.WhatsApp] = true
	}
	if smtp {
		sb, err := messagesandbox.StartSMTP("127.0.0.1:0", messagesandbox.SMTPOptions{Logger: log.With("component", "mail-sandbox")})
		if err != nil {
			closeAll()
			return nil, nil, fmt.Errorf("start the mail sandbox: %w", err)
		}
		closers = append(closers, func() { _ = sb.Close() })
		host, port, _ := net.SplitHostPort(sb.Addr())
		from := cfg.SMTP.From
		if from == "" {
			from = `"Keuangan Sekolah (demo)" <keuangan@sekolah.invalid>`
		}
		cfg.SMTP = config.SMTP{Host: host, Port: port, From: from}
		sandboxed[messaging.Email] = true
	}
	return sandboxed, closeAll, nil
}
