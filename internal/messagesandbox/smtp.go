package messagesandbox

import (
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"strings"
	"sync"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"github.com/sekolah/portal/internal/clock"
)

// Mail is one message the SMTP sandbox accepted.
type Mail struct {
	// QueueID is the id the sandbox answered with ("queued as …").
	QueueID  string
	From     string
	To       []string
	Subject  string
	Text     string // the text/plain part, decoded
	HTML     string // the text/html part, decoded ("" when none)
	Raw      []byte
	At       time.Time
	AuthUser string
	// TLS: the message came over TLS (STARTTLS).
	TLS bool
}

// SMTPOptions configure the SMTP sandbox.
type SMTPOptions struct {
	// Username and Password, when set, are required (AUTH PLAIN) before MAIL.
	Username, Password string
	// TLS, when set, is offered with STARTTLS.
	TLS    *tls.Config
	Clock  clock.Clock
	Logger *slog.Logger
}

// SMTP is the SMTP sandbox: a real SMTP server (go-smtp) that keeps what it accepts.
type SMTP struct {
	opts SMTPOptions
	srv  *smtp.Server
	ln   net.Listener

	mu     sync.Mutex
	mails  []Mail
	faults []*smtp.SMTPError
	seq    int
}

// StartSMTP listens on addr ("127.0.0.1:0" for any free port) and serves.
func StartSMTP(addr string, o SMTPOptions) (*SMTP, error) {
	if o.Clock.IsZero() {
		o.Clock = clock.System(time.UTC)
	}
	s := &SMTP{opts: o}
	srv := smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) { return &session{s: s, conn: c}, nil }))
	srv.Domain = "sandbox.invalid"
	srv.AllowInsecureAuth = true // loopback only, in tests and the demo
	srv.MaxMessageBytes = 10 << 20
	srv.MaxRecipients = 50
	srv.ReadTimeout, srv.WriteTimeout = time.Minute, time.Minute
	srv.EnableSMTPUTF8 = true
	srv.TLSConfig = o.TLS
	srv.ErrorLog = log.New(io.Discard, "", 0) // a client hanging up is no news
	if o.Logger != nil {
		srv.ErrorLog = slog.NewLogLogger(o.Logger.Handler(), slog.LevelDebug)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("messagesandbox: smtp: %w", err)
	}
	s.srv, s.ln = srv, ln
	go func() { _ = srv.Serve(ln) }()
	return s, nil
}

// Addr is the address the server listens on (host:port).
func (s *SMTP) Addr() string { return s.ln.Addr().String() }

// Close stops the server.
func (s *SMTP) Close() error { return s.srv.Close() }

// Mails are the messages accepted so far, oldest first.
func (s *SMTP) Mails() []Mail {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Mail(nil), s.mails...)
}

// Fail makes the next count messages refused at RCPT with code and its enhanced code
// (e.g. 451 "4.3.0" or 550 "5.1.1"), as a mail server says a mailbox is busy or unknown.
func (s *SMTP) Fail(count, code int, enhanced [3]int, msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range count {
		s.faults = append(s.faults, &smtp.SMTPError{Code: code, EnhancedCode: smtp.EnhancedCode(enhanced), Message: msg})
	}
}

type session struct {
	s      *SMTP
	conn   *smtp.Conn
	authed string
	from   string
	to     []string
}

func (se *session) AuthMechanisms() []string { return []string{sasl.Plain} }

func (se *session) Auth(mech string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(identity, username, password string) error {
		if username != se.s.opts.Username || password != se.s.opts.Password {
			return &smtp.SMTPError{Code: 535, EnhancedCode: smtp.EnhancedCode{5, 7, 8}, Message: "Authentication credentials invalid"}
		}
		se.authed = username
		return nil
	}), nil
}

func (se *session) Mail(from string, _ *smtp.MailOptions) error {
	if se.s.opts.Username != "" && se.authed == "" {
		return &smtp.SMTPError{Code: 530, EnhancedCode: smtp.EnhancedCode{5, 7, 0}, Message: "Authentication required"}
	}
	se.from = from
	return nil
}

func (se *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	se.s.mu.Lock()
	defer se.s.mu.Unlock()
	if len(se.s.faults) > 0 {
		f := se.s.faults[0]
		se.s.faults = se.s.faults[1:]
		return f
	}
	se.to = append(se.to, to)
	return nil
}

func (se *session) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	_, tlsOn := se.conn.TLSConnectionState()
	m := Mail{From: se.from, To: se.to, Raw: raw, At: se.s.opts.Clock.Now(), AuthUser: se.authed, TLS: tlsOn}
	if err := decode(&m); err != nil {
		return &smtp.SMTPError{Code: 554, EnhancedCode: smtp.EnhancedCode{5, 6, 0}, Message: "Message not readable: " + err.Error()}
	}
	se.s.mu.Lock()
	se.s.seq++
	m.QueueID = fmt.Sprintf("SBX%06d", se.s.seq)
	se.s.mails = append(se.s.mails, m)
	se.s.mu.Unlock()
	// A 2xx "error" is go-smtp's way to choose the answer: the id in it, like Postfix's.
	return &smtp.SMTPError{Code: 250, EnhancedCode: smtp.EnhancedCode{2, 0, 0}, Message: "OK: queued as " + m.QueueID}
}

func (se *session) Reset()        { se.from, se.to = "", nil }
func (se *session) Logout() error { return nil }

// decode reads the subject and the text and HTML parts of a message.
func decode(m *Mail) error {
	msg, err := mail.ReadMessage(bytes.NewReader(m.Raw))
	if err != nil {
		return err
	}
	dec := new(mime.WordDecoder)
	if m.Subject, err = dec.DecodeHeader(msg.Header.Get("Subject")); err != nil {
		return err
	}
	ct, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil {
		return err
	}
	part := func(ct, cte string, r io.Reader) error {
		if strings.EqualFold(cte, "quoted-printable") {
			r = quotedprintable.NewReader(r)
		}
		b, err := io.ReadAll(r)
		if err != nil {
			return err
		}
		switch ct {
		case "text/plain":
			m.Text = string(b)
		case "text/html":
			m.HTML = string(b)
		}
		return nil
	}
	if !strings.HasPrefix(ct, "multipart/") {
		return part(ct, msg.Header.Get("Content-Transfer-Encoding"), msg.Body)
	}
	mr := multipart.NewReader(msg.Body, params["boundary"])
	for {
		p, err := mr.NextRawPart()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		pct, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type"))
		if err := part(pct, p.Header.Get("Content-Transfer-Encoding"), p); err != nil {
			return err
		}
	}
}
