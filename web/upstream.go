package web

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/i18n"
)

// errUpstreamSlow is why a page stops waiting for the billing service; it reads as a
// timeout, so the person gets the timeout message.
var errUpstreamSlow = fmt.Errorf("web: the billing service answered too slowly: %w", billing.ErrTimeout)

// upstreamCtx bounds a page's calls to the billing service, retries included, to about
// one upstream timeout, so a slow service is reported while the person still waits.
func (h *Handler) upstreamCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, h.cfg.UpstreamTimeout+time.Second, errUpstreamSlow)
}

// upstreamStatus is the status a page answers with when the billing service failed.
func upstreamStatus(err error) int {
	switch {
	case errors.Is(err, billing.ErrTimeout):
		return http.StatusGatewayTimeout
	case errors.Is(err, billing.ErrUnavailable):
		return http.StatusServiceUnavailable
	case errors.Is(err, billing.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, billing.ErrValidation):
		return http.StatusUnprocessableEntity
	}
	return http.StatusBadGateway
}

// isUpstream reports whether err is the billing service's doing (its answer, or no answer
// in time), as against a failure of the portal's own.
func isUpstream(err error) bool {
	var apiErr *billing.APIError
	return errors.As(err, &apiErr) || errors.Is(err, billing.ErrTimeout) || errors.Is(err, billing.ErrUnavailable) ||
		errors.Is(err, billing.ErrUnauthorized)
}

// upstreamMessage says in the person's language what went wrong with the billing service.
// write tells whether the call could have changed something: a timeout on a write is
// ambiguous, and the person must be told to check before trying again.
func (h *Handler) upstreamMessage(ctx context.Context, err error, write bool) string {
	var apiErr *billing.APIError
	switch {
	case errors.Is(err, billing.ErrTimeout):
		key := "upstream.timeout"
		if write {
			key = "upstream.timeout_uncertain"
		}
		// Whole seconds, rounded up: a timeout under a second still reads "1 detik", never "0 detik".
		return i18n.T(ctx, key, max(1, int(math.Ceil(h.cfg.UpstreamTimeout.Seconds()))))
	case errors.Is(err, billing.ErrUnauthorized):
		return i18n.T(ctx, "upstream.unauthorized")
	case errors.Is(err, billing.ErrUnavailable):
		return i18n.T(ctx, "upstream.unavailable")
	case errors.Is(err, billing.ErrNotFound):
		return i18n.T(ctx, "upstream.not_found")
	case errors.As(err, &apiErr) && errors.Is(err, billing.ErrValidation) && apiErr.StatusDesc != "":
		return i18n.T(ctx, "upstream.validation", apiErr.StatusDesc)
	}
	return i18n.T(ctx, "upstream.generic")
}
