// Package mail sends the portal's e-mail to parents over SMTP: a MIME message in UTF-8
// (plain text, with an HTML alternative when given), STARTTLS whenever the server offers
// it (smtps:// for TLS from the first byte), AUTH PLAIN when credentials are configured;
// the server's answer kept (its queue id, for tracing a message in the server's log) and
// its refusals typed: permanent (5xx, do not send again) or temporary (4xx, try later).
//
// It uses github.com/emersion/go-smtp's client rather than net/smtp, which is frozen: it
// hands back the server's final answer to DATA (where "queued as …" is), reads refusals
// into typed errors with their enhanced status codes, and speaks SMTPUTF8. The tests' and
// the demo's server is the same library's (internal/messagesandbox).
//
// Like internal/billing and internal/whatsapp it is part of the floor: it imports nothing
// of the module, and takes the clock as a func.
package mail

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/mail"
	"strings"
	"sync/atomic"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Config is how the client reaches the mail server.
type Config struct {
	// Host and Port are the server's address.
	Host, Port string
	// Username and Password authenticate with AUTH PLAIN (none when Username is empty).
	Username, Password string
	// Implicit is TLS from the first byte (smtps, port 465); otherwise STARTTLS when the
	// server offers it.
	Implicit bool
	// From is the sender, "Name <address>" or an address.
	From string
	// HelloName is the name the client greets with (EHLO); default: the sender's domain.
	HelloName string
	// Timeout bounds one message's whole exchange (default 30s).
	Timeout time.Duration
	// TLS is the TLS configuration (nil: the system's roots, ServerName from Host).
	TLS *tls.Config
	// Now is the clock (the Date header); required.
	Now func() time.Time
}

// Client sends messages to one mail server.
type Client struct {
	cfg  Config
	from *mail.Address
	// starttls remembers that the server offered STARTTLS: from then on it is required,
	// so a connection whose offer was stripped on the way is refused, not sent in clear.
	starttls atomic.Bool
}

// New checks cfg and builds the client.
func New(cfg Config) (*Client, error) {
	from, err := mail.ParseAddress(cfg.From)
	switch {
	case cfg.Host == "" || cfg.Port == "":
		return nil, errors.New("mail: no server address")
	case err != nil:
		return nil, fmt.Errorf("mail: the sender %q: %w", cfg.From, err)
	case cfg.Now == nil:
		return nil, errors.New("mail: no clock")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	if cfg.HelloName == "" {
		cfg.HelloName = "localhost"
		if _, domain, ok := strings.Cut(from.Address, "@"); ok && domain != "" {
			cfg.HelloName = domain
		}
	}
	return &Client{cfg: cfg, from: from}, nil
}

// From is the sender as configured.
func (c *Client) From() string { return c.from.String() }

// Message is one e-mail to one parent.
type Message struct {
	// To is the recipient's address; ToName their name (may be empty).
	To, ToName string
	// Subject, Text and HTML are the message (HTML optional: an alternative to Text).
	Subject, Text, HTML string
}

// Receipt is the server's acceptance of a message.
type Receipt struct {
	// MessageID is the Message-ID header the portal gave the message ("<…@…>").
	MessageID string
	// Answer is the server's final answer to the message ("2.0.0 Ok: queued as 4F2…").
	Answer string
	// QueueID is the server's id of the message, read from Answer when it says one.
	QueueID string
}

// Error is the server's refusal of a message, or a failure to reach it.
type Error struct {
	// Code is the SMTP reply code (550, 451, …); 0 when the server was not reached or did
	// not answer.
	Code int
	// Enhanced is the enhanced status code ("5.1.1"), when the server gave one.
	Enhanced string
	// Message is the server's text, or what went wrong.
	Message string
	// Stage is the command the refusal answered (connect, auth, mail, rcpt, data).
	Stage string
	// NoAnswer: the message was written but its answer never came: it may have been
	// accepted, so sending it again may deliver it twice.
	NoAnswer bool
}

func (e *Error) Error() string {
	if e.Code == 0 {
		return "mail: " + e.Stage + ": " + e.Message
	}
	s := fmt.Sprintf("mail: %s: %d", e.Stage, e.Code)
	if e.Enhanced != "" {
		s += " " + e.Enhanced
	}
	return s + " " + e.Message
}

// Permanent: the server refused for good (5xx): the same message will not go through
// (unknown mailbox, policy); send it no more.
func (e *Error) Permanent() bool { return e.Code >= 500 && e.Code < 600 }

// Temporary: try again later: the server said so (4xx: mailbox busy, greylisting, rate
// limit) or could not be reached or did not answer.
func (e *Error) Temporary() bool { return !e.Permanent() }

// AsError is err's SMTP refusal, when it is one.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// Send delivers m to the server. A refusal or a failure is an *Error.
func (c *Client) Send(ctx context.Context, m Message) (Receipt, error) {
	to, err := mail.ParseAddress(m.To)
	if err != nil {
		return Receipt{}, &Error{Code: 553, Enhanced: "5.1.3", Stage: "rcpt", Message: "not an e-mail address: " + m.To}
	}
	if m.ToName != "" {
		to.Name = m.ToName
	}
	msgID := c.newMessageID()
	data, err := build(c.from, to, m, msgID, c.cfg.Now())
	if err != nil {
		return Receipt{}, fmt.Errorf("mail: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	cl, err := c.dial(ctx)
	if err != nil {
		return Receipt{}, err
	}
	defer cl.Close()
	// The context's end closes the connection: every command below then fails at once.
	stop := context.AfterFunc(ctx, func() { cl.Close() })
	defer stop()

	var opts *smtp.MailOptions
	if !isASCII(c.from.Address) || !isASCII(to.Address) {
		opts = &smtp.MailOptions{UTF8: true}
	}
	if err := cl.Mail(c.from.Address, opts); err != nil {
		return Receipt{}, refusal("mail", err)
	}
	if err := cl.Rcpt(to.Address, nil); err != nil {
		return Receipt{}, refusal("rcpt", err)
	}
	w, err := cl.Data()
	if err != nil {
		return Receipt{}, refusal("data", err)
	}
	if _, err := w.Write(data); err != nil {
		e := refusal("data", err)
		e.NoAnswer = e.Code == 0
		return Receipt{}, e
	}
	resp, err := w.CloseWithResponse()
	if err != nil {
		e := refusal("data", err)
		e.NoAnswer = e.Code == 0
		return Receipt{}, e
	}
	_ = cl.Quit()
	return Receipt{MessageID: msgID, Answer: resp.StatusText, QueueID: queueID(resp.StatusText)}, nil
}

// dial connects, greets, secures (TLS or STARTTLS where offered) and authenticates.
func (c *Client) dial(ctx context.Context) (*smtp.Client, error) {
	addr := net.JoinHostPort(c.cfg.Host, c.cfg.Port)
	tlsCfg := c.cfg.TLS
	if tlsCfg == nil {
		tlsCfg = &tls.Config{}
	}
	if tlsCfg.ServerName == "" {
		tlsCfg = tlsCfg.Clone()
		tlsCfg.ServerName = c.cfg.Host
	}
	connect := func() (net.Conn, error) {
		d := &net.Dialer{}
		conn, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			return nil, &Error{Stage: "connect", Message: err.Error()}
		}
		if dl, ok := ctx.Deadline(); ok {
			_ = conn.SetDeadline(dl)
		}
		if c.cfg.Implicit {
			tc := tls.Client(conn, tlsCfg)
			if err := tc.HandshakeContext(ctx); err != nil {
				conn.Close()
				return nil, &Error{Stage: "connect", Message: "TLS: " + err.Error()}
			}
			return tc, nil
		}
		return conn, nil
	}
	conn, err := connect()
	if err != nil {
		return nil, err
	}
	var cl *smtp.Client
	secure := c.cfg.Implicit
	switch {
	case secure:
		cl = smtp.NewClient(conn)
		if err := cl.Hello(c.cfg.HelloName); err != nil {
			cl.Close()
			return nil, refusal("connect", err)
		}
	case c.starttls.Load():
		cl, err = smtp.NewClientStartTLS(conn, tlsCfg)
		if err != nil {
			conn.Close()
			return nil, &Error{Stage: "connect", Message: "STARTTLS (offered before, required since): " + err.Error()}
		}
		secure = true
	default:
		// The first connection asks what the server offers; when it offers STARTTLS, the
		// client says so from then on and connects again with it.
		cl = smtp.NewClient(conn)
		if err := cl.Hello(c.cfg.HelloName); err != nil {
			cl.Close()
			return nil, refusal("connect", err)
		}
		if ok, _ := cl.Extension("STARTTLS"); ok {
			cl.Close()
			c.starttls.Store(true)
			return c.dial(ctx)
		}
	}
	if c.cfg.Username != "" {
		if !secure && !loopback(c.cfg.Host) {
			cl.Close()
			return nil, &Error{Stage: "auth", Message: "the server offers no STARTTLS: the password would travel in clear (use smtps://, or a server that offers STARTTLS)"}
		}
		if err := cl.Auth(sasl.NewPlainClient("", c.cfg.Username, c.cfg.Password)); err != nil {
			cl.Close()
			return nil, refusal("auth", err)
		}
	}
	return cl, nil
}

// refusal reads a go-smtp error (an *smtp.SMTPError when the server answered).
func refusal(stage string, err error) *Error {
	var se *smtp.SMTPError
	if errors.As(err, &se) {
		e := &Error{Code: se.Code, Message: se.Message, Stage: stage}
		if ec := se.EnhancedCode; ec != smtp.EnhancedCodeNotSet && ec != smtp.NoEnhancedCode {
			e.Enhanced = fmt.Sprintf("%d.%d.%d", ec[0], ec[1], ec[2])
		}
		return e
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Stage: stage, Message: err.Error()}
}

// queueID reads the id a server names its accepted message by, from the usual answers:
// "Ok: queued as 4F2A1C" (Postfix), "OK id=1q2w3e-0004Xy-7Z" (Exim), "… <id> Queued".
func queueID(answer string) string {
	fields := strings.Fields(answer)
	for i, f := range fields {
		lf := strings.ToLower(f)
		switch {
		case lf == "as" && i > 0 && strings.EqualFold(fields[i-1], "queued") && i+1 < len(fields):
			return strings.Trim(fields[i+1], "<>.,;")
		case strings.HasPrefix(lf, "id="):
			return strings.Trim(f[3:], "<>.,;")
		}
	}
	return ""
}

func (c *Client) newMessageID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	domain := "portal.invalid"
	if _, d, ok := strings.Cut(c.from.Address, "@"); ok && d != "" {
		domain = d
	}
	return "<" + hex.EncodeToString(b) + "@" + domain + ">"
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
