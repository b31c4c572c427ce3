package web

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/sekolah/portal/views/pages"
)

// newPayment is the counter form: a NIS lookup, then the student's unpaid components.
func (h *Handler) newPayment(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	v := pages.PaymentView{NIS: strings.TrimSpace(q.Get("nis")), Ref: strings.TrimSpace(q.Get("ref")), Today: h.counter.Today()}
	status := http.StatusOK
	if v.NIS != "" {
		if st, err := h.counter.Student(ctx, v.NIS); err != nil {
			status = h.paymentStudentFailed(ctx, &v, err)
		} else {
			v = paymentView(ctx, st, v.Ref, q["component"])
		}
	}
	if isPartial(r) {
		push := "/payments/new"
		if v.NIS != "" {
			push += "?" + url.Values{"nis": {v.NIS}}.Encode()
		}
		w.Header().Set("HX-Push-Url", push)
	}
	h.page(w, r, status, pages.PaymentNew(v), pages.PaymentPanel(v))
}
