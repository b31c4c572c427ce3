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
// from the service, but it covers only the reference, so the body is a notice, not a
// fact. The callback is stored once per reference (a resend with another body is kept
// aside, never applied), then the service is asked at once what it holds of that
// reference, and only its answer reaches the ledger (ledger.Confirmer.Receive). The
// answer is 200 once the notice is stored, whether the service confirmed it in time or
// not: the notice waits and is confirmed when the service answers, and a resend would
// only repeat the first body. 401 when the signature or the body is refused (nothing
// stored), 500 when it could not be stored (the service sends it again).
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
	_, err = h.callbacks.Receive(ctx, r.Header.Get(billing.CallbackHeader), body)
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
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, "stored\n")
}
