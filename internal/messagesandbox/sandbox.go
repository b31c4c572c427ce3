// Package messagesandbox stands in for the services the portal sends parents' messages
// through, over the wire: the WhatsApp Business Cloud API's messages endpoint (CloudAPI:
// bearer token, template and text messages, its error shape, and status webhooks posted
// back signed with the app secret) and an SMTP server (SMTP, go-smtp's server side). Each
// records what would have been sent. The tests talk to them through the real clients; a
// portal on the embedded payment sandbox starts them so its demo sends, and shows, its
// messages without a WhatsApp account or a mail server.
//
// It imports nothing of the module but the clock: it must not borrow the clients'
// reading of the protocols (internal/whatsapp, internal/mail).
package messagesandbox

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sekolah/portal/internal/clock"
)

// Options configure the Cloud API sandbox.
type Options struct {
	// Token is the bearer token the sandbox accepts.
	Token string
	// PhoneNumberID is the business number's id of the path ({base}/{id}/messages).
	PhoneNumberID string
	// AppSecret signs the webhooks it posts (X-Hub-Signature-256).
	AppSecret string
	// WebhookURL is where statuses and parents' messages are posted; "" posts none.
	WebhookURL string
	// StatusDelay is the time between an accepted message and its "sent", "delivered" and
	// (three delays later) "read" statuses; 0 posts no status by itself (PostStatus does).
	StatusDelay time.Duration
	// Unapproved are template names the sandbox refuses as not approved (code 132001).
	Unapproved []string
	// Clock stamps messages and statuses; the zero value: the system's.
	Clock  clock.Clock
	Logger *slog.Logger
}

// NotOnWhatsApp is the ending of the numbers the sandbox treats as not on WhatsApp: it
// accepts a message to one, then posts a failed status with code 131026 (undeliverable),
// as the Cloud API does.
const NotOnWhatsApp = "0000"

// WhatsAppMessage is one message the sandbox accepted.
type WhatsAppMessage struct {
	ID string
	// To is the recipient's number as sent.
	To string
	// Type is "template" or "text".
	Type string
	// Template and Language name a template; Params are its body's parameters.
	Template, Language string
	Params             []string
	// Text is a text message's body.
	Text string
	At   time.Time
	// Status is the last status posted (accepted until one is).
	Status string
}

// CloudAPI is the sandbox of the Cloud API's messages endpoint; an http.Handler.
type CloudAPI struct {
	opts Options
	log  *slog.Logger
	http *http.Client

	mu       sync.Mutex
	messages []WhatsAppMessage
	inbound  map[string]time.Time // number → the parent's last message
	faults   []fault

	wg   sync.WaitGroup
	done chan struct{}
	once sync.Once
}

type fault struct {
	status, code int
	retryAfter   int
}

// NewCloudAPI builds the sandbox; Close stops the statuses it is still to post.
func NewCloudAPI(o Options) *CloudAPI {
	if o.Clock.IsZero() {
		o.Clock = clock.System(time.UTC)
	}
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	return &CloudAPI{opts: o, log: log, http: &http.Client{Timeout: 10 * time.Second},
		inbound: map[string]time.Time{}, done: make(chan struct{})}
}

// SetWebhookURL changes where statuses are posted (a portal whose address is known only
// once it listens).
func (s *CloudAPI) SetWebhookURL(u string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opts.WebhookURL = u
}

func (s *CloudAPI) webhookURL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.opts.WebhookURL
}

// Close stops posting statuses and waits for the posts under way.
func (s *CloudAPI) Close() {
	s.once.Do(func() { close(s.done) })
	s.wg.Wait()
}

// Messages are the messages accepted so far, oldest first.
func (s *CloudAPI) Messages() []WhatsAppMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]WhatsAppMessage, len(s.messages))
	for i, m := range s.messages {
		out[i] = m
		out[i].Params = slices.Clone(m.Params)
	}
	return out
}

// Fail makes the next count sends answer status with the Cloud API's error code (500 with
// 131000, 429 with 130429, …); retryAfter > 0 adds a Retry-After header.
func (s *CloudAPI) Fail(count, status, code, retryAfter int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range count {
		s.faults = append(s.faults, fault{status: status, code: code, retryAfter: retryAfter})
	}
}

// ServeHTTP answers POST {base}/{phone-number-id}/messages, whatever the base (a version).
func (s *CloudAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if len(parts) < 2 || parts[len(parts)-1] != "messages" {
		graphError(w, http.StatusBadRequest, 100, "OAuthException", "Unknown path components: "+r.URL.Path, "")
		return
	}
	if r.Method != http.MethodPost {
		graphError(w, http.StatusBadRequest, 100, "OAuthException", "Unsupported get request.", "")
		return
	}
	if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); !ok || !hmac.Equal([]byte(tok), []byte(s.opts.Token)) {
		graphError(w, http.StatusUnauthorized, 190, "OAuthException", "Invalid OAuth access token - Cannot parse access token", "")
		return
	}
	if parts[len(parts)-2] != s.opts.PhoneNumberID {
		graphError(w, http.StatusBadRequest, 100, "GraphMethodException",
			"Unsupported post request. Object with ID '"+parts[len(parts)-2]+"' does not exist", "")
		return
	}
	s.mu.Lock()
	if len(s.faults) > 0 {
		f := s.faults[0]
		s.faults = s.faults[1:]
		s.mu.Unlock()
		if f.retryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(f.retryAfter))
		}
		graphError(w, f.status, f.code, "OAuthException", faultMessage(f.code), "")
		return
	}
	s.mu.Unlock()

	var req struct {
		MessagingProduct string `json:"messaging_product"`
		To               string `json:"to"`
		Type             string `json:"type"`
		Template         *struct {
			Name     string `json:"name"`
			Language struct {
				Code string `json:"code"`
			} `json:"language"`
			Components []struct {
				Type       string `json:"type"`
				Parameters []struct {
					Type string `json:"type"`
					Text string `json:"text"`
				} `json:"parameters"`
			} `json:"components"`
		} `json:"template"`
		Text *struct {
			Body string `json:"body"`
		} `json:"text"`
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil || json.Unmarshal(body, &req) != nil {
		graphError(w, http.StatusBadRequest, 100, "OAuthException", "(#100) Invalid parameter", "The request body is not JSON")
		return
	}
	to := strings.TrimPrefix(req.To, "+")
	switch {
	case req.MessagingProduct != "whatsapp":
		graphError(w, http.StatusBadRequest, 100, "OAuthException", "(#100) The parameter messaging_product is required.", "")
		return
	case len(to) < 8 || len(to) > 15 || strings.Trim(to, "0123456789") != "":
		graphError(w, http.StatusBadRequest, 100, "OAuthException", "(#100) Invalid parameter", "Invalid parameter: to: not a phone number")
		return
	}
	m := WhatsAppMessage{ID: newWamid(), To: req.To, Type: req.Type, At: s.opts.Clock.Now(), Status: "accepted"}
	switch req.Type {
	case "template":
		if req.Template == nil || req.Template.Name == "" || req.Template.Language.Code == "" {
			graphError(w, http.StatusBadRequest, 131008, "OAuthException", "(#131008) Required parameter is missing", "template name and language are required")
			return
		}
		if slices.Contains(s.opts.Unapproved, req.Template.Name) {
			graphError(w, http.StatusNotFound, 132001, "OAuthException", "(#132001) Template name does not exist in the translation",
				fmt.Sprintf("template name (%s) does not exist in %s", req.Template.Name, req.Template.Language.Code))
			return
		}
		m.Template, m.Language = req.Template.Name, req.Template.Language.Code
		for _, c := range req.Template.Components {
			if c.Type == "body" {
				for _, p := range c.Parameters {
					m.Params = append(m.Params, p.Text)
				}
			}
		}
	case "text":
		if req.Text == nil || strings.TrimSpace(req.Text.Body) == "" {
			graphError(w, http.StatusBadRequest, 100, "OAuthException", "(#100) Param text['body'] is required", "")
			return
		}
		m.Text = req.Text.Body
	default:
		graphError(w, http.StatusBadRequest, 131051, "OAuthException", "(#131051) Message type unknown", "")
		return
	}
	s.mu.Lock()
	windowOpen := m.At.Sub(s.inbound[to]) < 24*time.Hour
	s.messages = append(s.messages, m)
	s.mu.Unlock()

	w.Header().Set("Content-Type", "application/json")
	answer := map[string]any{
		"messaging_product": "whatsapp",
		"contacts":          []map[string]string{{"input": req.To, "wa_id": to}},
		"messages":          []map[string]string{{"id": m.ID, "message_status": "accepted"}},
	}
	_ = json.NewEncoder(w).Encode(answer)

	// What follows comes by webhook, as from the Cloud API: the statuses, or a failure.
	switch {
	case strings.HasSuffix(to, NotOnWhatsApp):
		s.schedule(m.ID, to, 1, "failed", 131026)
	case m.Type == "text" && !windowOpen:
		s.schedule(m.ID, to, 1, "failed", 131047)
	default:
		s.schedule(m.ID, to, 1, "sent", 0)
		s.schedule(m.ID, to, 2, "delivered", 0)
		s.schedule(m.ID, to, 5, "read", 0)
	}
}

// schedule posts a status after steps of StatusDelay (nothing when StatusDelay is 0).
func (s *CloudAPI) schedule(id, to string, steps int, status string, code int) {
	if s.opts.StatusDelay <= 0 || s.webhookURL() == "" {
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.NewTimer(time.Duration(steps) * s.opts.StatusDelay)
		defer t.Stop()
		select {
		case <-s.done:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.postStatus(ctx, id, to, status, code); err != nil {
			s.log.Warn("message sandbox: post a status", "id", id, "status", status, "err", err)
		}
	}()
}

// PostStatus posts status (sent, delivered, read, failed) of message id to the webhook,
// signed; a failed status carries the error code (131026, 131047, …).
func (s *CloudAPI) PostStatus(ctx context.Context, id, status string, code int) error {
	s.mu.Lock()
	to := ""
	for _, m := range s.messages {
		if m.ID == id {
			to = strings.TrimPrefix(m.To, "+")
		}
	}
	s.mu.Unlock()
	return s.postStatus(ctx, id, to, status, code)
}

func (s *CloudAPI) postStatus(ctx context.Context, id, to, status string, code int) error {
	st := map[string]any{"id": id, "status": status, "timestamp": strconv.FormatInt(s.opts.Clock.Now().Unix(), 10), "recipient_id": to}
	if status == "failed" {
		st["errors"] = []map[string]any{{"code": code, "title": faultMessage(code), "message": faultMessage(code),
			"error_data": map[string]string{"details": faultMessage(code)}}}
	}
	if err := s.post(ctx, map[string]any{"statuses": []any{st}}); err != nil {
		return err
	}
	s.mu.Lock()
	for i := range s.messages {
		if s.messages[i].ID == id {
			s.messages[i].Status = status
		}
	}
	s.mu.Unlock()
	return nil
}

// Inbound is a parent writing to the school's number: it opens their 24-hour window and
// is posted to the webhook like the Cloud API's messages notification.
func (s *CloudAPI) Inbound(ctx context.Context, from, text string) error {
	from = strings.TrimPrefix(from, "+")
	now := s.opts.Clock.Now()
	s.mu.Lock()
	s.inbound[from] = now
	s.mu.Unlock()
	if s.webhookURL() == "" {
		return nil
	}
	return s.post(ctx, map[string]any{
		"contacts": []any{map[string]any{"profile": map[string]string{"name": "Orang tua"}, "wa_id": from}},
		"messages": []any{map[string]any{"from": from, "id": newWamid(), "timestamp": strconv.FormatInt(now.Unix(), 10),
			"type": "text", "text": map[string]string{"body": text}}},
	})
}

// post sends one notification of field "messages" with value's contents, signed.
func (s *CloudAPI) post(ctx context.Context, value map[string]any) error {
	value["messaging_product"] = "whatsapp"
	value["metadata"] = map[string]string{"display_phone_number": "15550000000", "phone_number_id": s.opts.PhoneNumberID}
	body, err := json.Marshal(map[string]any{
		"object": "whatsapp_business_account",
		"entry":  []any{map[string]any{"id": "0", "changes": []any{map[string]any{"field": "messages", "value": value}}}},
	})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.webhookURL(), bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	mac := hmac.New(sha256.New, []byte(s.opts.AppSecret))
	mac.Write(body)
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	resp, err := s.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("webhook answered %s", resp.Status)
	}
	return nil
}

// graphError writes the Graph API's error shape.
func graphError(w http.ResponseWriter, status, code int, typ, msg, details string) {
	e := map[string]any{"message": msg, "type": typ, "code": code, "fbtrace_id": "Sandbox" + strconv.Itoa(code)}
	if details != "" {
		e["error_data"] = map[string]string{"messaging_product": "whatsapp", "details": details}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": e})
}

func faultMessage(code int) string {
	switch code {
	case 130429:
		return "(#130429) Rate limit hit"
	case 131000:
		return "(#131000) Something went wrong"
	case 131026:
		return "Message undeliverable"
	case 131047:
		return "Re-engagement message: more than 24 hours have passed since the recipient last replied"
	case 131056:
		return "(#131056) (Business Account, Consumer Account) pair rate limit hit"
	case 190:
		return "Error validating access token: Session has expired"
	case 132001:
		return "(#132001) Template name does not exist in the translation"
	}
	return fmt.Sprintf("(#%d) Sandbox fault", code)
}

func newWamid() string {
	b := make([]byte, 18)
	_, _ = rand.Read(b)
	return "wamid." + base64.StdEncoding.EncodeToString(b)
}
