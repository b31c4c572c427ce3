package web

import (
	"net/http"

	"github.com/sekolah/portal/views/pages"
)

// showClosing is the cashiers' closing of a day (?day=, today without it): every
// cashier's receipts and cash, and the signed-in cashier's sign-off.
func (h *Handler) showClosing(w http.ResponseWriter, r *http.Request) {
	day, notice := h.closingDay(r)
	v, status := h.closingView(r.Context(), day)
	v.Notice = notice
	h.page(w, r, status, pages.Closing(v), pages.ClosingBody(v))
}
