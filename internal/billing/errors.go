package billing

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Error kinds the portal translates into a message; match them with errors.Is.
var (
	// ErrNotFound: unknown student or component (404).
	ErrNotFound = errors.New("billing: not found")
	// ErrUnauthorized: credentials refused (401) or user disabled (403).
	ErrUnauthorized = errors.New("billing: credentials refused")
	// ErrValidation: the service rejected the request's content (400, 406, 422).
	ErrValidation = errors.New("billing: request rejected")
	// ErrUnavailable: the service failed or could not be reached (500-504, connection errors).
	ErrUnavailable = errors.New("billing: service unavailable")
	// ErrTimeout: an attempt got no answer in time, or the call ran past its
	// deadline; a POST may have been applied.
	ErrTimeout = errors.New("billing: no answer in time")
)

// APIError is an error answer of the service, with its envelope's texts.
type APIError struct {
	StatusCode int
	Status     string // reason text, e.g. "Bad Request"
	StatusDesc string // the service's detail, e.g. "bill_upload_list[3].due_date: required"
	Items      []ItemError
	Method     string
	Path       string
}

// ItemError is one rejected item of a batch: its index in the request, field and reason.
type ItemError struct {
	Index   int
	Field   string
	Message string
}

// Error reads like "billing: POST /bill_component/batch: 400 Bad Request: bill_upload_list[3].due_date: required".
func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "billing: %s %s: %d %s", e.Method, e.Path, e.StatusCode, e.Status)
	switch {
	case e.StatusDesc != "":
		b.WriteString(": ")
		b.WriteString(e.StatusDesc)
	case len(e.Items) > 0:
		for i, it := range e.Items {
			if i == 0 {
				b.WriteString(": ")
			} else {
				b.WriteString("; ")
			}
			fmt.Fprintf(&b, "[%d].%s: %s", it.Index, it.Field, it.Message)
		}
	}
	return b.String()
}

// Is maps the status code to the error kinds, as the methods of classify.go read it.
func (e *APIError) Is(target error) bool {
	switch target {
	case ErrNotFound:
		return e.NotFound()
	case ErrUnauthorized:
		return e.Unauthorized()
	case ErrValidation:
		return e.Validation()
	case ErrUnavailable:
		return e.Unavailable()
	}
	return false
}

// transportError is a call that got no HTTP answer: a timeout, the call's
// deadline or a broken connection.
type transportError struct {
	method, path string
	timeout      time.Duration // > 0 when the attempt timed out, or the deadline when deadline
	deadline     bool          // the call's overall deadline ran out
	attempts     int
	err          error
}

func (e *transportError) Error() string {
	if e.deadline {
		msg := fmt.Sprintf("billing: %s %s: no answer within the %s allowed for the call (%d attempts)", e.method, e.path, e.timeout, e.attempts)
		if !idempotent(e.method) {
			msg += " (the request may have been applied)"
		}
		return msg
	}
	if e.timeout > 0 {
		msg := fmt.Sprintf("billing: %s %s: did not answer within %s", e.method, e.path, e.timeout)
		if !idempotent(e.method) {
			msg += " (the request may have been applied)"
		}
		return msg
	}
	return fmt.Sprintf("billing: %s %s: %v", e.method, e.path, e.err)
}

func (e *transportError) Unwrap() error { return e.err }

func (e *transportError) Is(target error) bool {
	switch target {
	case ErrTimeout:
		return e.timeout > 0
	case ErrUnavailable:
		return e.timeout == 0
	}
	return false
}

// invalidInput is a request the client refuses before sending it.
func invalidInput(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrValidation, fmt.Sprintf(format, args...))
}
