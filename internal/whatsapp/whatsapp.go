// Package whatsapp is the portal's client of the WhatsApp Business Cloud API: sending a
// template message (what a school starts: a receipt, a reminder) or, while the parent's
// conversation window is open, a text, to POST {base}/{phone-number-id}/messages with the
// app's bearer token; the API's refusals read once into an *Error with its meaning
// (RateLimited, InvalidRecipient, TemplateProblem, Unauthorized, WindowClosed,
// Temporary); and the webhook's side: the subscription handshake (hub.mode,
// hub.verify_token, hub.challenge), the X-Hub-Signature-256 of each delivery (HMAC-SHA256
// of the raw body keyed with the app secret) and its status and message notifications.
//
// Like internal/billing it is part of the floor: it imports nothing of the module, and
// internal/messagesandbox, the Cloud API the tests and the demo talk to over the wire,
// never imports it (nor it the sandbox).
package whatsapp

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Config is how the client reaches the Cloud API.
type Config struct {
	// BaseURL is the API's address with its version, e.g. https://graph.facebook.com/v26.0.
	BaseURL string
	// Token is the bearer token (a system user's access token).
	Token string
	// PhoneNumberID is the business phone number's id messages are sent from.
	PhoneNumberID string
	// AppSecret keys the webhook deliveries' signatures.
	AppSecret string
	// VerifyToken is what the subscription handshake must present; empty: derived from
	// the app secret (DeriveVerifyToken).
	VerifyToken string
	// Timeout bounds one call (default 20s).
	Timeout time.Duration
	// HTTP is the HTTP client; nil: one with Timeout.
	HTTP *http.Client
}

// Client sends messages through the Cloud API and checks its webhook's deliveries.
type Client struct {
	cfg      Config
	endpoint string
	http     *http.Client
}

// New checks cfg and builds the client.
func New(cfg Config) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(cfg.BaseURL, "/"))
	switch {
	case err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "":
		return nil, errors.New("whatsapp: the base URL must be an absolute http(s) URL")
	case cfg.Token == "":
		return nil, errors.New("whatsapp: no token")
	case cfg.PhoneNumberID == "" || strings.ContainsAny(cfg.PhoneNumberID, "/?#"):
		return nil, errors.New("whatsapp: no phone number id")
	case cfg.AppSecret == "":
		return nil, errors.New("whatsapp: no app secret")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 20 * time.Second
	}
	if cfg.VerifyToken == "" {
		cfg.VerifyToken = DeriveVerifyToken(cfg.AppSecret)
	}
	hc := cfg.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: cfg.Timeout}
	}
	return &Client{cfg: cfg, http: hc, endpoint: u.String() + "/" + url.PathEscape(cfg.PhoneNumberID) + "/messages"}, nil
}

// DeriveVerifyToken is the verify token of a webhook when none is configured: a keyed
// hash of the app secret, so it is stable across restarts and instances and tells
// nothing of the secret.
func DeriveVerifyToken(appSecret string) string {
	m := hmac.New(sha256.New, []byte(appSecret))
	m.Write([]byte("portal whatsapp webhook verify token"))
	return hex.EncodeToString(m.Sum(nil))[:32]
}

// VerifyToken is the token the webhook's subscription handshake must present (to be
// typed into the app's webhook settings).
func (c *Client) VerifyToken() string { return c.cfg.VerifyToken }

// Template is an approved message template and the values of its body's {{1}}, {{2}}….
type Template struct {
	// Name is the template's name as approved (lower case, digits and underscores).
	Name string
	// Language is its language code, e.g. "id" or "en_US".
	Language string
	// Body are the body's parameters, in order.
	Body []string
}

// Sent is the API's answer to a message it accepted.
type Sent struct {
	// MessageID is the message's id (wamid.…): the statuses of the webhook name it.
	MessageID string
	// WaID is the recipient's WhatsApp id as the API read the number.
	WaID string
	// Status is the API's word on the message when it gave one (accepted, held_for_quality_assessment).
	Status string
}

// The wire shapes of a send (the Cloud API's messages endpoint).
type (
	sendRequest struct {
		MessagingProduct string        `json:"messaging_product"`
		RecipientType    string        `json:"recipient_type"`
		To               string        `json:"to"`
		Type             string        `json:"type"`
		Template         *wireTemplate `json:"template,omitempty"`
		Text             *wireText     `json:"text,omitempty"`
	}
	wireTemplate struct {
		Name       string          `json:"name"`
		Language   wireLanguage    `json:"language"`
		Components []wireComponent `json:"components,omitempty"`
	}
	wireLanguage struct {
		Code string `json:"code"`
	}
	wireComponent struct {
		Type       string          `json:"type"`
		Parameters []wireParameter `json:"parameters"`
	}
	wireParameter struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	wireText struct {
		PreviewURL bool   `json:"preview_url"`
		Body       string `json:"body"`
	}
	sendResponse struct {
		Contacts []struct {
			Input string `json:"input"`
			WaID  string `json:"wa_id"`
		} `json:"contacts"`
		Messages []struct {
			ID            string `json:"id"`
			MessageStatus string `json:"message_status"`
		} `json:"messages"`
	}
)

// SendTemplate sends template t to the number to (international digits, "628123…").
func (c *Client) SendTemplate(ctx context.Context, to string, t Template) (Sent, error) {
	if t.Name == "" || t.Language == "" {
		return Sent{}, errors.New("whatsapp: a template needs a name and a language")
	}
	wt := &wireTemplate{Name: t.Name, Language: wireLanguage{Code: t.Language}}
	if len(t.Body) > 0 {
		comp := wireComponent{Type: "body"}
		for _, p := range t.Body {
			comp.Parameters = append(comp.Parameters, wireParameter{Type: "text", Text: p})
		}
		wt.Components = []wireComponent{comp}
	}
	return c.send(ctx, sendRequest{To: to, Type: "template", Template: wt})
}

// SendText sends a text message: only delivered while the parent's conversation window is
// open (24 hours after their last message to the school); otherwise the API refuses it
// (an *Error whose WindowClosed is true, in the answer or as a failed status later).
// Links in body are previewed when previewURL.
func (c *Client) SendText(ctx context.Context, to, body string, previewURL bool) (Sent, error) {
	if strings.TrimSpace(body) == "" {
		return Sent{}, errors.New("whatsapp: an empty text")
	}
	return c.send(ctx, sendRequest{To: to, Type: "text", Text: &wireText{Body: body, PreviewURL: previewURL}})
}

func (c *Client) send(ctx context.Context, req sendRequest) (Sent, error) {
	if !validNumber(req.To) {
		return Sent{}, &Error{Code: CodeInvalidParameter, Message: "not an international phone number: " + req.To, kind: KindInvalidRecipient}
	}
	req.MessagingProduct, req.RecipientType = "whatsapp", "individual"
	body, err := json.Marshal(req)
	if err != nil {
		return Sent{}, fmt.Errorf("whatsapp: %w", err)
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return Sent{}, fmt.Errorf("whatsapp: %w", err)
	}
	hr.Header.Set("Authorization", "Bearer "+c.cfg.Token)
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(hr)
	if err != nil {
		// No answer: the message may or may not have gone out.
		return Sent{}, &Error{Message: "no answer from the Cloud API: " + err.Error(), kind: KindUnavailable, noAnswer: true}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return Sent{}, &Error{HTTPStatus: resp.StatusCode, Message: "the answer was cut off: " + err.Error(), kind: KindUnavailable, noAnswer: true}
	}
	if resp.StatusCode/100 != 2 {
		return Sent{}, readError(resp.StatusCode, resp.Header, raw)
	}
	var out sendResponse
	if err := json.Unmarshal(raw, &out); err != nil || len(out.Messages) == 0 || out.Messages[0].ID == "" {
		// Accepted (2xx) but without the id the statuses will name.
		return Sent{}, &Error{HTTPStatus: resp.StatusCode, Message: "an answer without a message id", kind: KindUnavailable, noAnswer: true}
	}
	s := Sent{MessageID: out.Messages[0].ID, Status: out.Messages[0].MessageStatus}
	if len(out.Contacts) > 0 {
		s.WaID = out.Contacts[0].WaID
	}
	return s, nil
}

// validNumber is a phone number in international form: 8 to 15 digits, an optional "+".
func validNumber(s string) bool {
	s = strings.TrimPrefix(s, "+")
	if len(s) < 8 || len(s) > 15 || s[0] == '0' {
		return false
	}
	return strings.Trim(s, "0123456789") == ""
}

// retryAfter reads a Retry-After header in seconds (the only form the Graph API uses).
func retryAfter(h http.Header) time.Duration {
	if n, err := strconv.Atoi(strings.TrimSpace(h.Get("Retry-After"))); err == nil && n > 0 {
		return time.Duration(n) * time.Second
	}
	return 0
}
