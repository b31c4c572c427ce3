package web

import (
	"net/http"

	"github.com/sekolah/portal/views/pages"
)

// confirmPayment shows exactly what will be paid, priced as of today, and asks once more.
func (h *Handler) confirmPayment(w http.ResponseWriter, r *http.Request) {
	req, _ := readPaymentRequest(r)
	p, err := h.counter.Check(r.Context(), req)
	if err != nil {
		h.paymentChecksFailed(w, r, req, p, err)
		return
	}
	h.render(w, r, http.StatusOK, pages.PaymentConfirm(h.paymentConfirmView(r.Context(), p)))
}
