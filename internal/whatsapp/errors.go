package whatsapp

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// The Cloud API's refusals are read here, once, by their code (Meta's advice: codes and
// details, never the titles, which change): what kind of failure an *Error is, so the
// caller asks Kind() or one of its predicates and never matches words.

// Codes of the Cloud API's errors this client tells apart.
const (
	CodeUnknown            = 1      // API Unknown: possibly a server error
	CodeService            = 2      // API Service: temporary downtime or overload
	CodeTooManyCalls       = 4      // the app's call rate limit
	CodeAuth               = 0      // AuthException
	CodePermission         = 10     // permission denied
	CodeInvalidParameter   = 100    // invalid parameter (a malformed number among them)
	CodeTokenExpired       = 190    // access token expired or invalid
	CodeAccountRateLimit   = 80007  // the business account's rate limit
	CodeThroughput         = 130429 // the phone number's throughput reached
	CodeSomethingWrong     = 131000 // failed for an unknown reason: try again
	CodeServiceUnavailable = 131016 // service unavailable
	CodeRecipientIsSender  = 131021 // sender and recipient are the same number
	CodeUndeliverable      = 131026 // not a WhatsApp number, terms not accepted, old app
	CodeNotAllowed         = 131030 // a test number's recipient not in its allowed list
	CodeReEngagement       = 131047 // more than 24 hours since the parent's last message
	CodeSpamRateLimit      = 131048 // too many messages flagged: slowed down
	CodePairRateLimit      = 131056 // too many messages to the same number
	CodeParamCount         = 132000 // template parameters do not match the template
	CodeTemplateMissing    = 132001 // template does not exist (name or language), or not approved
	CodeTemplateTooLong    = 132005 // translated text too long
	CodeTemplateFormat     = 132007 // template's format policy violated
	CodeParamFormat        = 132012 // parameter format does not match the template
	CodeTemplatePaused     = 132015 // template paused for low quality
	CodeTemplateDisabled   = 132016 // template disabled
	CodeTemporarily        = 133004 // server temporarily unavailable
)

// Kind is what a refusal means for the sender.
type Kind int

// The kinds of failure.
const (
	// KindOther is a refusal no rule recognises: the request is wrong; do not repeat it.
	KindOther Kind = iota
	// KindRateLimited: too many messages; try again later (RetryAfter when said).
	KindRateLimited
	// KindInvalidRecipient: the number cannot receive WhatsApp messages.
	KindInvalidRecipient
	// KindTemplate: the template is missing, not approved, paused, or its parameters do
	// not fit it: the school's WhatsApp settings need a look.
	KindTemplate
	// KindUnauthorized: the token is wrong, expired or lacks the permission.
	KindUnauthorized
	// KindWindowClosed: a text outside the parent's 24-hour window; send a template.
	KindWindowClosed
	// KindUnavailable: the API failed or did not answer; the same message may be tried again.
	KindUnavailable
)

// String names the kind for logs.
func (k Kind) String() string {
	return [...]string{"other", "rate_limited", "invalid_recipient", "template", "unauthorized", "window_closed", "unavailable"}[k]
}

// Error is the Cloud API's refusal of a request, or of a message afterwards (a failed
// status of the webhook, ErrorOf).
type Error struct {
	// HTTPStatus is the answer's status (0: a webhook's error, or no answer).
	HTTPStatus int
	// Code, Subcode and Type are the Graph API's error fields.
	Code, Subcode int
	Type          string
	// Message is the API's message; Details its error_data.details, when given.
	Message, Details string
	// TraceID is fbtrace_id, for Meta's support.
	TraceID string
	// RetryAfter is how long the API asked to wait (Retry-After), when it said.
	RetryAfter time.Duration

	kind     Kind
	noAnswer bool
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("whatsapp: ")
	if e.HTTPStatus != 0 {
		fmt.Fprintf(&b, "HTTP %d: ", e.HTTPStatus)
	}
	if e.Code != 0 || e.HTTPStatus != 0 {
		fmt.Fprintf(&b, "code %d: ", e.Code)
	}
	b.WriteString(e.Message)
	if e.Details != "" {
		b.WriteString(" (" + e.Details + ")")
	}
	return b.String()
}

// Kind is what the refusal means.
func (e *Error) Kind() Kind { return e.kind }

// RateLimited: too many messages now; try again after RetryAfter (or a back-off).
func (e *Error) RateLimited() bool { return e.kind == KindRateLimited }

// InvalidRecipient: the number cannot receive WhatsApp messages.
func (e *Error) InvalidRecipient() bool { return e.kind == KindInvalidRecipient }

// TemplateProblem: the template is missing, not approved, paused or disabled, or its
// parameters do not fit.
func (e *Error) TemplateProblem() bool { return e.kind == KindTemplate }

// Unauthorized: the token is wrong, expired or without the permission.
func (e *Error) Unauthorized() bool { return e.kind == KindUnauthorized }

// WindowClosed: a text outside the parent's 24-hour conversation window.
func (e *Error) WindowClosed() bool { return e.kind == KindWindowClosed }

// Temporary reports whether sending the same message again later may work: rate limits,
// the API's own failures and a call without an answer.
func (e *Error) Temporary() bool { return e.kind == KindRateLimited || e.kind == KindUnavailable }

// MayHaveBeenSent: the call got no usable answer, so the API may have accepted the
// message: a retry may send it twice.
func (e *Error) MayHaveBeenSent() bool { return e.noAnswer }

// AsError is err's Cloud API refusal, when it is one.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// kindOf classifies a code (and the HTTP status, for an answer without a known code).
func kindOf(code, status int) Kind {
	switch code {
	case CodeThroughput, CodeTooManyCalls, CodeAccountRateLimit, CodeSpamRateLimit, CodePairRateLimit:
		return KindRateLimited
	case CodeUndeliverable, CodeRecipientIsSender, CodeNotAllowed:
		return KindInvalidRecipient
	case CodeParamCount, CodeTemplateMissing, CodeTemplateTooLong, CodeTemplateFormat, CodeParamFormat,
		CodeTemplatePaused, CodeTemplateDisabled:
		return KindTemplate
	case CodeTokenExpired, CodePermission:
		return KindUnauthorized
	case CodeReEngagement:
		return KindWindowClosed
	case CodeUnknown, CodeService, CodeSomethingWrong, CodeServiceUnavailable, CodeTemporarily:
		return KindUnavailable
	}
	if code >= 200 && code <= 299 { // API permission errors
		return KindUnauthorized
	}
	switch {
	case status == http.StatusTooManyRequests:
		return KindRateLimited
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return KindUnauthorized
	case status >= 500 || status == http.StatusRequestTimeout:
		return KindUnavailable
	case code == CodeAuth && status != 0:
		// AuthException shares code 0 with "no code": only an answer's 4xx says which.
		return KindUnauthorized
	}
	return KindOther
}

// wireError is the Graph API's error body, also the shape of a webhook's errors.
type wireError struct {
	Message   string `json:"message"`
	Type      string `json:"type"`
	Code      int    `json:"code"`
	Subcode   int    `json:"error_subcode"`
	Title     string `json:"title"`
	TraceID   string `json:"fbtrace_id"`
	ErrorData struct {
		Details string `json:"details"`
	} `json:"error_data"`
}

// readError reads a refusal's body: {"error": {...}} when the API wrote one; otherwise
// the status alone decides (a proxy's 502 page, an empty 500).
func readError(status int, h http.Header, raw []byte) *Error {
	e := &Error{HTTPStatus: status, RetryAfter: retryAfter(h)}
	var body struct {
		Error *wireError `json:"error"`
	}
	if json.Unmarshal(raw, &body) == nil && body.Error != nil {
		w := body.Error
		e.Code, e.Subcode, e.Type, e.Message, e.Details, e.TraceID = w.Code, w.Subcode, w.Type, w.Message, w.ErrorData.Details, w.TraceID
		e.kind = kindOf(w.Code, status)
		if e.kind == KindOther && w.Code == CodeInvalidParameter && mentionsNumber(w.Message+" "+w.ErrorData.Details) {
			e.kind = KindInvalidRecipient
		}
		return e
	}
	e.Message = http.StatusText(status)
	if s := strings.TrimSpace(string(raw)); s != "" && len(s) < 200 {
		e.Message += ": " + s
	}
	e.kind = kindOf(-1, status)
	return e
}

// mentionsNumber: an invalid parameter that is the recipient's number (code 100 names the
// parameter in its details).
func mentionsNumber(s string) bool {
	s = strings.ToLower(s)
	return strings.Contains(s, "phone number") || strings.Contains(s, "parameter: to") || strings.Contains(s, "recipient")
}
