package web

import (
	"errors"
	"io"
	"net/http"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/ledger"
)

// maxCallbackBytes bounds a payment callback's body: one payment's components, a few
// kilobytes; far more is not a callback.
const maxCallbackBytes = 256 << 10

// receivePaymentCallback is POST /hooks/payments, where the billing service announces
// each payment made at a bank or merchant. It is outside sessions and CSRF: the
// signature (X-IDN-CS, made with the portal's issued password) is what proves it comes
// from the service. The payment is stored, applied to the ledger and audited in one
// transaction before the answer: 200 only once it is stored (the service sends it again
// otherwise, and again is harmless), 401 when the signature or the body is refused
// (nothing stored), 500 when it could not be stored.
func (h *Handler) receivePaymentCallback(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxCallbackBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			http.Error(w, "payment callback too large", http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "payment callback not read", http.StatusBadRequest)
		return
	}
	res, err := h.ledger.ReceiveCallback(ctx, r.Header.Get(billing.CallbackHeader), body)
	switch {
	case errors.Is(err, ledger.ErrCallbackRefused):
		h.log.Warn("payment callback refused: nothing stored", "err", err, "addr", h.clientIP(r))
		http.Error(w, "payment callback refused", http.StatusUnauthorized)
		return
	case err != nil:
		h.log.Error("payment callback not stored; the service sends it again", "err", err)
		http.Error(w, "payment callback not stored, send it again", http.StatusInternalServerError)
		return
	}
	if res.Pending > 0 {
		// It names components the ledger does not have yet: a sync brings them, paid.
		h.sync.Nudge()
	}
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, "stored\n")
}
