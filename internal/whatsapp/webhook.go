package whatsapp

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The webhook: Meta first checks the callback address with a GET (the subscription
// handshake), then POSTs each notification signed with the app secret.

// ErrBadSignature means a delivery's X-Hub-Signature-256 is missing or wrong: it did not
// come from Meta (or was changed on the way), and nothing in it may be believed.
var ErrBadSignature = errors.New("whatsapp: webhook signature missing or wrong")

// SignatureHeader is the header a delivery's signature comes in.
const SignatureHeader = "X-Hub-Signature-256"

// Handshake answers the subscription handshake's query (hub.mode=subscribe,
// hub.verify_token, hub.challenge): the challenge to echo when the verify token is the
// client's, ok false otherwise (answer 403).
func (c *Client) Handshake(q url.Values) (challenge string, ok bool) {
	return Handshake(q, c.cfg.VerifyToken)
}

// Handshake is the subscription check against verifyToken (see Client.Handshake).
func Handshake(q url.Values, verifyToken string) (string, bool) {
	if verifyToken == "" || q.Get("hub.mode") != "subscribe" || q.Get("hub.challenge") == "" {
		return "", false
	}
	if subtle.ConstantTimeCompare([]byte(q.Get("hub.verify_token")), []byte(verifyToken)) != 1 {
		return "", false
	}
	return q.Get("hub.challenge"), true
}

// Sign is the X-Hub-Signature-256 value of body under secret ("sha256=" and the hex
// HMAC-SHA256): what Meta sends, and what a sandbox sends to look like it.
func Sign(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// VerifySignature checks header (the X-Hub-Signature-256 value) against the raw body
// under the app secret, in constant time.
func (c *Client) VerifySignature(body []byte, header string) error {
	return VerifySignature(c.cfg.AppSecret, body, header)
}

// VerifySignature is the signature check under secret (see Client.VerifySignature).
func VerifySignature(secret string, body []byte, header string) error {
	hexSum, ok := strings.CutPrefix(strings.TrimSpace(header), "sha256=")
	if !ok || secret == "" {
		return ErrBadSignature
	}
	got, err := hex.DecodeString(hexSum)
	if err != nil {
		return ErrBadSignature
	}
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	if !hmac.Equal(got, m.Sum(nil)) {
		return ErrBadSignature
	}
	return nil
}

// StatusKind is a message's delivery status as the webhook reports it.
type StatusKind string

// The statuses, in the order a message goes through them (Failed ends it instead).
const (
	StatusSent      StatusKind = "sent"
	StatusDelivered StatusKind = "delivered"
	StatusRead      StatusKind = "read"
	StatusFailed    StatusKind = "failed"
)

// Rank orders statuses: a status never goes back to a lower rank (webhooks arrive out of
// order: "read" can come before "delivered"); failed outranks all. 0 for an unknown word.
func (s StatusKind) Rank() int {
	switch s {
	case StatusSent:
		return 1
	case StatusDelivered:
		return 2
	case StatusRead:
		return 3
	case StatusFailed:
		return 4
	}
	return 0
}

// Status is one status notification of a message the portal sent.
type Status struct {
	// MessageID is the wamid the send answered with.
	MessageID string
	Status    StatusKind
	// At is when it happened (UTC).
	At time.Time
	// RecipientID is the parent's WhatsApp id.
	RecipientID string
	// Errors say why a failed message failed (each an *Error without an HTTP status).
	Errors []*Error
}

// Inbound is a message a parent sent to the school's number: it opens their 24-hour
// window, in which the portal may answer with text.
type Inbound struct {
	From, ID, Type, Text string
	At                   time.Time
}

// Notification is one webhook delivery, read.
type Notification struct {
	Statuses []Status
	Messages []Inbound
}

// The wire shape of a delivery.
type (
	wireNotification struct {
		Object string `json:"object"`
		Entry  []struct {
			ID      string `json:"id"`
			Changes []struct {
				Field string     `json:"field"`
				Value wireChange `json:"value"`
			} `json:"changes"`
		} `json:"entry"`
	}
	wireChange struct {
		MessagingProduct string `json:"messaging_product"`
		Metadata         struct {
			PhoneNumberID string `json:"phone_number_id"`
		} `json:"metadata"`
		Statuses []struct {
			ID          string      `json:"id"`
			Status      string      `json:"status"`
			Timestamp   string      `json:"timestamp"`
			RecipientID string      `json:"recipient_id"`
			Errors      []wireError `json:"errors"`
		} `json:"statuses"`
		Messages []struct {
			From      string `json:"from"`
			ID        string `json:"id"`
			Timestamp string `json:"timestamp"`
			Type      string `json:"type"`
			Text      struct {
				Body string `json:"body"`
			} `json:"text"`
		} `json:"messages"`
	}
)

// Parse reads a delivery's body (checked with VerifySignature first) into what the
// portal keeps: the statuses and the parents' messages of the client's phone number.
// Changes of other fields (account updates, template reviews) and of other numbers are
// left out.
func (c *Client) Parse(body []byte) (Notification, error) {
	return Parse(body, c.cfg.PhoneNumberID)
}

// Parse reads a delivery for phoneNumberID ("": any number). See Client.Parse.
func Parse(body []byte, phoneNumberID string) (Notification, error) {
	var w wireNotification
	if err := json.Unmarshal(body, &w); err != nil {
		return Notification{}, fmt.Errorf("whatsapp: webhook body: %w", err)
	}
	if w.Object != "whatsapp_business_account" {
		return Notification{}, fmt.Errorf("whatsapp: webhook object %q", w.Object)
	}
	var n Notification
	for _, e := range w.Entry {
		for _, ch := range e.Changes {
			v := ch.Value
			if ch.Field != "messages" || (phoneNumberID != "" && v.Metadata.PhoneNumberID != "" && v.Metadata.PhoneNumberID != phoneNumberID) {
				continue
			}
			for _, s := range v.Statuses {
				st := Status{MessageID: s.ID, Status: StatusKind(s.Status), At: unixTime(s.Timestamp), RecipientID: s.RecipientID}
				for _, we := range s.Errors {
					st.Errors = append(st.Errors, &Error{Code: we.Code, Subcode: we.Subcode, Type: we.Type,
						Message: firstNonEmpty(we.Message, we.Title), Details: we.ErrorData.Details, kind: kindOf(we.Code, 0)})
				}
				if st.MessageID != "" && st.Status.Rank() > 0 {
					n.Statuses = append(n.Statuses, st)
				}
			}
			for _, m := range v.Messages {
				n.Messages = append(n.Messages, Inbound{From: m.From, ID: m.ID, Type: m.Type, Text: m.Text.Body, At: unixTime(m.Timestamp)})
			}
		}
	}
	return n, nil
}

func unixTime(s string) time.Time {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n <= 0 {
		return time.Time{}
	}
	return time.Unix(n, 0).UTC()
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
