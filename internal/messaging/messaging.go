// Package messaging is how the portal writes to parents: a message of a kind (a receipt,
// a reminder, a follow-up, a term's notice, an admin's test) composed once for both
// channels (the WhatsApp template's parameters and the text an e-mail carries come from
// the same fields), sent through the WhatsApp Cloud API (internal/whatsapp) or SMTP
// (internal/mail), recorded with the provider's id and answer, and moved on by the
// webhook's statuses (sent, delivered, read, failed). Failures are typed for whoever
// sends: Retryable (and after how long) or not.
//
// Sending is one call; queueing, pacing and retrying belong to the outbox (a job kind of
// the job runner), which calls Compose and Send.
package messaging

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/sekolah/portal/internal/audit"
	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/followups"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/mail"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/students"
	"github.com/sekolah/portal/internal/whatsapp"
)

// Channel is how a message reaches the parents; its value is what the store keeps.
type Channel string

// The channels.
const (
	WhatsApp Channel = "whatsapp"
	Email    Channel = "email"
)

// ParseChannel reads a form's channel.
func ParseChannel(s string) (Channel, bool) {
	switch c := Channel(strings.TrimSpace(s)); c {
	case WhatsApp, Email:
		return c, true
	}
	return "", false
}

// Kind is what a message is about; each kind has its WhatsApp template (Settings).
type Kind string

// The kinds of messages, with their fields in the order of their template's {{1}}, {{2}}….
const (
	// KindTest is an admin's test of a channel: no fields (Meta's hello_world template).
	KindTest Kind = "test"
	// KindReceipt thanks for a payment: student, amount, what it paid, the parent page link.
	KindReceipt Kind = "receipt"
	// KindReminder announces a due date: student, what is due, the due day, amount, link.
	KindReminder Kind = "reminder"
	// KindFollowUp follows arrears up: student, overdue count, total today, link.
	KindFollowUp Kind = "followup"
	// KindNotice is a term's bill notice: student, what the bills are for, total, link.
	KindNotice Kind = "notice"
)

// Kinds lists the kinds in the settings page's order.
func Kinds() []Kind { return []Kind{KindReceipt, KindReminder, KindFollowUp, KindNotice, KindTest} }

// FieldCount is how many fields (template parameters) a kind takes.
func (k Kind) FieldCount() int {
	switch k {
	case KindReceipt, KindFollowUp, KindNotice:
		return 4
	case KindReminder:
		return 5
	}
	return 0
}

// Content is one message, composed for both channels.
type Content struct {
	Kind Kind
	// Fields are the values, in the template's order (its body parameters).
	Fields []string
	// Subject and Text are the e-mail's, and Text also what the message log shows.
	Subject, Text string
}

// Compose is a message of kind for the parents of a student at school, from its fields
// (see the kinds), always in Indonesian, the parents' language: the same fields fill the
// WhatsApp template and the e-mail text (catalogue keys messages.text.<kind>).
func Compose(kind Kind, school string, fields ...string) (Content, error) {
	if len(fields) != kind.FieldCount() {
		return Content{}, fmt.Errorf("messaging: a %s message takes %d fields, not %d", kind, kind.FieldCount(), len(fields))
	}
	p := i18n.NewPrinter(i18n.Indonesian, time.UTC)
	if school == "" {
		school = p.T("followups.wa.school_fallback")
	}
	args := []any{school}
	for _, f := range fields {
		args = append(args, f)
	}
	return Content{Kind: kind, Fields: fields, Subject: p.T("messages.subject."+string(kind), args...),
		Text: p.T("messages.text."+string(kind), args...)}, nil
}

// Outgoing is a message to send.
type Outgoing struct {
	// ID is its record's id ("" : a new one). The outbox names each attempt, so it finds
	// the record after a restart.
	ID      string
	Channel Channel
	Content Content
	// NIS is the student it is about ("" for a test).
	NIS string
	// To is the WhatsApp number (international digits) or the e-mail address; ToName the
	// parent's name.
	To, ToName string
	// Actor is who sent it (a username, or "portal" for the outbox).
	Actor string
}

// SendError is a failed send, read for the sender.
type SendError struct {
	Channel Channel
	// Code is the provider's code ("131026", "550 5.1.1"); Reason its words.
	Code, Reason string
	// Retryable: the same message may go through later (a rate limit, the provider down
	// or not answering, a mailbox busy). RetryAfter is the wait it asked for, when it said.
	Retryable  bool
	RetryAfter time.Duration
	// MayHaveBeenSent: no answer came after the message was handed over.
	MayHaveBeenSent bool
	// Key is the catalogue key that says it to staff.
	Key string
	Err error
}

func (e *SendError) Error() string {
	return fmt.Sprintf("messaging: %s: %s %s", e.Channel, e.Code, e.Reason)
}
func (e *SendError) Unwrap() error { return e.Err }

// AsSendError is err's failed send, when it is one.
func AsSendError(err error) (*SendError, bool) {
	var e *SendError
	ok := errors.As(err, &e)
	return e, ok
}

// Record is a message as the portal recorded it (what it said, to whom, the provider's id
// and answer, its status); Filter selects records.
type (
	Record = store.Message
	Filter = store.MessageFilter
)

// ErrNoChannel: the channel is not configured (no WhatsApp account, no mail server).
var ErrNoChannel = errors.New("messaging: channel not configured")

// Service sends messages and keeps their record.
type Service struct {
	DB *store.DB
	// WhatsApp and Mail are the clients; nil: that channel is not configured.
	WhatsApp *whatsapp.Client
	Mail     *mail.Client
	// Sandboxed names the channels that go to the embedded sandbox (the demo).
	Sandboxed map[Channel]bool
	// WebhookURL is where the Cloud API should post its statuses ("" : unknown).
	WebhookURL string
	Clock      clock.Clock
	Log        *slog.Logger
}

// Configured reports whether c can send.
func (s *Service) Configured(c Channel) bool {
	return c == WhatsApp && s.WhatsApp != nil || c == Email && s.Mail != nil
}

// Send sends o now and records it (sent, or failed with why). A failure is a
// *SendError (ErrNoChannel when the channel is not configured, nothing recorded).
func (s *Service) Send(ctx context.Context, o Outgoing) (store.Message, error) {
	return s.send(ctx, o, nil)
}

func (s *Service) send(ctx context.Context, o Outgoing, entry *store.AuditEntry) (store.Message, error) {
	if !s.Configured(o.Channel) {
		return store.Message{}, ErrNoChannel
	}
	m := store.Message{ID: o.ID, Channel: string(o.Channel), Kind: string(o.Content.Kind), NIS: o.NIS, Recipient: o.To, RecipientName: o.ToName,
		Subject: o.Content.Subject, Body: o.Content.Text, Actor: o.Actor, Status: string(whatsapp.StatusSent), StatusRank: whatsapp.StatusSent.Rank(),
		CreatedAt: s.Clock.Now()}
	var sendErr *SendError
	switch o.Channel {
	case WhatsApp:
		tpl, err := s.Template(ctx, o.Content.Kind)
		if err != nil {
			return store.Message{}, err
		}
		m.Template = tpl.Name + ":" + tpl.Language
		sent, err := s.WhatsApp.SendTemplate(ctx, o.To, whatsapp.Template{Name: tpl.Name, Language: tpl.Language, Body: o.Content.Fields})
		if err != nil {
			sendErr = whatsAppFailure(err)
		} else {
			m.ProviderID = sent.MessageID
		}
	case Email:
		r, err := s.Mail.Send(ctx, mail.Message{To: o.To, ToName: o.ToName, Subject: o.Content.Subject, Text: o.Content.Text})
		if err != nil {
			sendErr = mailFailure(err)
		} else {
			m.ProviderID, m.Answer = r.QueueID, r.Answer
			if m.ProviderID == "" {
				m.ProviderID = r.MessageID
			}
		}
	}
	if sendErr != nil {
		m.Status, m.StatusRank, m.ErrorCode, m.Error = string(whatsapp.StatusFailed), whatsapp.StatusFailed.Rank(), sendErr.Code, sendErr.Reason
		if entry != nil {
			entry.Outcome = string(audit.Failed)
		}
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	rec, err := s.DB.AddMessage(rctx, m, entry)
	if err != nil {
		s.logger().Error("record a message", "channel", o.Channel, "provider_id", m.ProviderID, "err", err)
		if sendErr == nil {
			return m, fmt.Errorf("messaging: sent but not recorded: %w", err)
		}
	}
	if sendErr != nil {
		return rec, sendErr
	}
	return rec, nil
}

func whatsAppFailure(err error) *SendError {
	e := &SendError{Channel: WhatsApp, Reason: err.Error(), Err: err, Key: "messages.err.whatsapp"}
	we, ok := whatsapp.AsError(err)
	if !ok {
		return e
	}
	e.Code, e.Reason = fmt.Sprint(we.Code), we.Message
	if we.Details != "" {
		e.Reason += " (" + we.Details + ")"
	}
	e.Retryable, e.RetryAfter, e.MayHaveBeenSent = we.Temporary(), we.RetryAfter, we.MayHaveBeenSent()
	switch we.Kind() {
	case whatsapp.KindRateLimited:
		e.Key = "messages.err.rate_limited"
	case whatsapp.KindInvalidRecipient:
		e.Key = "messages.err.invalid_number"
	case whatsapp.KindTemplate:
		e.Key = "messages.err.template"
	case whatsapp.KindUnauthorized:
		e.Key = "messages.err.unauthorized"
	case whatsapp.KindWindowClosed:
		e.Key = "messages.err.window"
	case whatsapp.KindUnavailable:
		e.Key = "messages.err.unavailable"
	}
	return e
}

func mailFailure(err error) *SendError {
	e := &SendError{Channel: Email, Reason: err.Error(), Err: err, Key: "messages.err.mail_temporary", Retryable: true}
	me, ok := mail.AsError(err)
	if !ok {
		return e
	}
	e.Reason, e.MayHaveBeenSent = me.Message, me.NoAnswer
	if me.Code != 0 {
		e.Code = fmt.Sprint(me.Code)
		if me.Enhanced != "" {
			e.Code += " " + me.Enhanced
		}
	}
	if me.Permanent() {
		e.Retryable, e.Key = false, "messages.err.mail_permanent"
	}
	return e
}

// ApplyWebhook checks a Cloud API webhook delivery (its X-Hub-Signature-256) and moves
// the messages it names on to their statuses; whatsapp.ErrBadSignature when the signature
// is wrong (nothing is read), ErrNoChannel without WhatsApp.
func (s *Service) ApplyWebhook(ctx context.Context, body []byte, signature string) (int, error) {
	if s.WhatsApp == nil {
		return 0, ErrNoChannel
	}
	if err := s.WhatsApp.VerifySignature(body, signature); err != nil {
		return 0, err
	}
	n, err := s.WhatsApp.Parse(body)
	if err != nil {
		return 0, err
	}
	changed := 0
	for _, st := range n.Statuses {
		at := st.At
		if at.IsZero() {
			at = s.Clock.Now()
		}
		var code, text string
		if len(st.Errors) > 0 {
			code, text = fmt.Sprint(st.Errors[0].Code), st.Errors[0].Message
			if d := st.Errors[0].Details; d != "" && d != text {
				text += " (" + d + ")"
			}
		}
		ok, err := s.DB.MessageStatus(ctx, st.MessageID, string(st.Status), st.Status.Rank(), at, code, text)
		if err != nil {
			return changed, fmt.Errorf("messaging: %w", err)
		}
		if ok {
			changed++
		}
	}
	return changed, nil
}

// Handshake answers the webhook's subscription check (see whatsapp.Client.Handshake).
func (s *Service) Handshake(q map[string][]string) (string, bool) {
	if s.WhatsApp == nil {
		return "", false
	}
	return s.WhatsApp.Handshake(q)
}

// VerifyToken is what an admin types into the app's webhook settings ("" without WhatsApp).
func (s *Service) VerifyToken() string {
	if s.WhatsApp == nil {
		return ""
	}
	return s.WhatsApp.VerifyToken()
}

// Recent lists the messages by f, newest first, and how many match.
func (s *Service) Recent(ctx context.Context, f Filter) ([]Record, int, error) {
	return s.DB.Messages(ctx, f)
}

// ActionTest is the audit action of an admin's test message.
const ActionTest = "messages.test"

// What a test message's entry keeps: the channel and the recipient.
const (
	keyChannel audit.Key = "channel"
	keyTo      audit.Key = "to"
)

var auditTest = audit.Register(audit.Action{Code: ActionTest, Keeps: []audit.Key{keyChannel, keyTo}, Needs: []audit.Key{keyChannel, keyTo}})

// SendTest sends an admin's test message on channel to to (a number or an address), so
// they see the configuration works; recorded and audited.
func (s *Service) SendTest(ctx context.Context, actor auth.Actor, channel Channel, to, school string) (store.Message, error) {
	c, _ := Compose(KindTest, school)
	e := auditTest.With(audit.ArgOf(keyChannel, string(channel)), audit.ArgOf(keyTo, to))
	e.Actor, e.Target, e.Outcome = actor.Audit(), to, audit.OK
	row := e.Row()
	return s.send(ctx, Outgoing{Channel: channel, Content: c, To: to, Actor: actor.Username}, &row)
}

func (s *Service) logger() *slog.Logger {
	if s.Log == nil {
		return slog.Default()
	}
	return s.Log
}

// TestAddress reads where an admin's test goes: a mobile number by the students' rule
// (international digits), or an e-mail address.
func TestAddress(c Channel, to string) (string, error) {
	if c == WhatsApp {
		return followups.WhatsAppNumber(to)
	}
	var l problem.List
	if to == "" || !students.CheckEmail(&l, to) {
		return "", errors.New("messaging: not an e-mail address")
	}
	return to, nil
}
