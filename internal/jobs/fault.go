package jobs

import (
	"cmp"
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/sekolah/portal/internal/billing"
)

// Fault is what a failed call means for sending again. The engine decides on it alone;
// a kind's Classify (BillingFault for the payment service) reads its service's errors.
type Fault int

// The faults.
const (
	// NoFault: the call was answered and did what it was asked.
	NoFault Fault = iota
	// NoAnswer: the call may have been applied without our hearing of it (a timeout, a lost
	// connection, the portal stopping, a gateway that gave up waiting): its items are read
	// at the service (Steps.Check) once it can no longer land, before anything is sent again.
	NoAnswer
	// Refused: the service answered no about the items: the kind decides each
	// (Steps.Refused); the others of a batch (all or nothing) are sent again at once.
	Refused
	// Down: the service failed or did not answer, and applied nothing: tried again a few
	// times quickly, then waited for, with a growing pause, for WaitFor.
	Down
	// Denied: the service refused the portal's credentials and applied nothing: the
	// chunk's unsent items are given up until a person retries (an admin must act).
	Denied
	// Other: not the service's (a fault of the portal's own): tried again, MaxAttempts at
	// most.
	Other
)

// String names the fault, for logs and tests.
func (f Fault) String() string {
	switch f {
	case NoFault:
		return "no fault"
	case NoAnswer:
		return "no answer"
	case Refused:
		return "refused"
	case Down:
		return "down"
	case Denied:
		return "denied"
	case Other:
		return "other"
	}
	return "fault " + strconv.Itoa(int(f))
}

// Classify reads an error of a call for the engine: its fault and, refused, the service's
// words (what an item's problem keeps).
type Classify func(err error) (Fault, string)

// BillingFault classifies the payment service's errors (internal/billing): an answer of
// the service says what happened, a gateway's 502 or 504 and anything without an answer
// may have been applied, and a request the client refused before sending was refused.
func BillingFault(err error) (Fault, string) {
	var apiErr *billing.APIError
	switch {
	case err == nil:
		return NoFault, ""
	case errors.As(err, &apiErr):
		switch {
		case apiErr.StatusCode == 502 || apiErr.StatusCode == 504:
			return NoAnswer, ""
		case errors.Is(err, billing.ErrUnauthorized):
			return Denied, ""
		case errors.Is(err, billing.ErrUnavailable), apiErr.StatusCode == 429, apiErr.StatusCode >= 500:
			return Down, ""
		}
		return Refused, strings.TrimSpace(cmp.Or(apiErr.StatusDesc, apiErr.Status, err.Error()))
	case errors.Is(err, billing.ErrValidation):
		return Refused, err.Error() // the client refused it before sending
	case errors.Is(err, billing.ErrTimeout), errors.Is(err, billing.ErrUnavailable),
		errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return NoAnswer, ""
	}
	return Other, ""
}
