package web

import (
	"net/http"

	"github.com/sekolah/portal/views/pages"
)

// confirmPayment shows exactly what will be paid, priced as of today, and asks once more.
func (h *Handler) confirmPayment(w http.ResponseWriter, r *http.Request) {
	c, ok := h.checkPayment(w, r)
	if !ok {
		return
	}
	h.render(w, r, http.StatusOK, pages.PaymentConfirm(paymentConfirmView(r.Context(), c)))
}
