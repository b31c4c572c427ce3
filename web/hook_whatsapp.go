package web

import (
	"errors"
	"io"
	"net/http"

	"github.com/sekolah/portal/internal/messaging"
	"github.com/sekolah/portal/internal/whatsapp"
)

// whatsAppHandshake answers the Cloud API's webhook subscription check: the challenge
// when the verify token is the portal's, 403 otherwise; 404 without WhatsApp.
func (h *Handler) whatsAppHandshake(w http.ResponseWriter, r *http.Request) {
	challenge, ok := h.messaging.Handshake(r.URL.Query())
	if !ok {
		if h.messaging.VerifyToken() == "" {
			http.NotFound(w, r)
			return
		}
		http.Error(w, "forbidden", http.StatusForbidden)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = io.WriteString(w, challenge)
}

// receiveWhatsAppWebhook takes the Cloud API's notifications: signed with the app secret
// (X-Hub-Signature-256, checked on the raw body before anything is read), their statuses
// move the sent messages on. A wrong signature is 401 and nothing is stored; a failure to
// store is a 500, which the Cloud API delivers again.
func (h *Handler) receiveWhatsAppWebhook(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
	if err != nil {
		http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
		return
	}
	_, err = h.messaging.ApplyWebhook(r.Context(), body, r.Header.Get(whatsapp.SignatureHeader))
	switch {
	case errors.Is(err, messaging.ErrNoChannel):
		http.NotFound(w, r)
	case errors.Is(err, whatsapp.ErrBadSignature):
		h.log.Warn("WhatsApp webhook with a wrong signature refused", "ip", h.clientIP(r))
		http.Error(w, "bad signature", http.StatusUnauthorized)
	case err != nil:
		h.log.Error("WhatsApp webhook", "err", err)
		http.Error(w, "not stored", http.StatusInternalServerError)
	default:
		w.WriteHeader(http.StatusOK)
	}
}
