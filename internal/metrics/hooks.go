package metrics

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/ledger"
)

// Request counts one request web served: route is chi's pattern of the route that
// answered ("/students/{nis}", never the path with its NIS; "" when none matched),
// status the answer's (0: none written, which net/http sends as 200).
func (m *Metrics) Request(route, method string, status int, took time.Duration) {
	if m == nil {
		return
	}
	if route == "" {
		route = "unmatched" // a 404 for any path: the path itself is the sender's, unbounded
	}
	if status == 0 {
		status = 200
	}
	m.requests.WithLabelValues(route, methodLabel(method), statusClass(status)).Observe(took.Seconds())
}

// methodLabel bounds the method label: a client may send any token as a method.
func methodLabel(m string) string {
	switch m {
	case "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS":
		return m
	}
	return "other"
}

// statusClass is "2xx" for 204; "none" for no status.
func statusClass(code int) string {
	if code < 100 || code > 599 {
		return "none"
	}
	return strconv.Itoa(code/100) + "xx"
}

// BillingCall counts one call to the payment service (billing.Config.Observe).
func (m *Metrics) BillingCall(c billing.Call) {
	if m == nil {
		return
	}
	status := c.Status
	if e, ok := billing.AsAPIError(c.Err); ok {
		status = e.StatusCode // a failure a gateway put in a 200's envelope counts as the failure
	}
	m.calls.WithLabelValues(c.Endpoint, statusClass(status), ErrorKind(c.Err)).Observe(c.Duration.Seconds())
	if c.Attempts > 1 {
		m.retries.WithLabelValues(c.Endpoint).Add(float64(c.Attempts - 1))
	}
}

// ErrorKind is the label of a call's error, as internal/billing classifies it (never
// from the service's words): none, not_found, unauthorized, validation, unavailable (the
// service failed, or could not be reached), timeout (no answer in time: a write may have
// been applied), canceled (the caller went away) or other.
func ErrorKind(err error) string {
	if err == nil {
		return "none"
	}
	if e, ok := billing.AsAPIError(err); ok {
		switch {
		case e.NotFound():
			return "not_found"
		case e.Unauthorized():
			return "unauthorized"
		case e.Validation():
			return "validation"
		case e.Unavailable():
			return "unavailable"
		}
		return "other"
	}
	switch {
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, billing.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, billing.ErrUnavailable):
		return "unavailable"
	case errors.Is(err, billing.ErrValidation):
		return "validation"
	}
	return "other"
}

// Ledger is the ledger's Observer (ledger.Config.Observer); nil for nil metrics.
func (m *Metrics) Ledger() ledger.Observer {
	if m == nil {
		return nil
	}
	return ledgerObserver{m}
}

// ledgerObserver is the metrics as a ledger.Observer.
type ledgerObserver struct{ m *Metrics }

func (o ledgerObserver) CallbackRefused() { o.m.refused.Inc() }

func (o ledgerObserver) CallbackSettled(status ledger.CallbackStatus, waited time.Duration) {
	o.m.confirmation.WithLabelValues(string(status)).Observe(waited.Seconds())
}

func (o ledgerObserver) SyncRan(kind, problem string, took time.Duration) {
	outcome := problem
	if outcome == "" {
		outcome = "ok"
	}
	o.m.syncRuns.WithLabelValues(kind, outcome).Inc()
	o.m.syncTook.WithLabelValues(kind).Observe(took.Seconds())
}
