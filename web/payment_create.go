package web

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/bills"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/upstream"
	"github.com/sekolah/portal/views/pages"
)

// createPayment records a counter payment after checking the choice once more against the
// service: a component paid or expired since the confirmation is refused, so the same page
// cannot pay twice. A payment whose outcome is unknown (timeout) is never retried: the
// person is sent to check first.
func (h *Handler) createPayment(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	c, ok := h.checkPayment(w, r)
	if !ok {
		return
	}
	if total, err := strconv.ParseInt(c.in.Total, 10, 64); err != nil || total != c.sel.Total {
		// Midnight passed (a penalty now applies) or the form was not the confirmation.
		v := paymentConfirmView(ctx, c)
		v.Warning = i18n.T(ctx, "payments.err.total_changed", i18n.Rupiah(c.sel.Total))
		h.render(w, r, http.StatusConflict, pages.PaymentConfirm(v))
		return
	}
	paid, err := h.writer.Pay(ctx, h.actor(r), billing.Payment{NIS: c.in.NIS, RefNumber: c.ref, ComponentIDs: c.sel.IDs})
	if err != nil {
		h.log.Warn("counter payment", "nis", c.in.NIS, "ref", c.ref, "outcome", upstream.Outcome(err), "err", err)
		if upstream.Ambiguous(err) {
			h.render(w, r, http.StatusGatewayTimeout, pages.PaymentUnknown(pages.PaymentUnknownView{
				NIS: c.in.NIS, Ref: c.ref, Message: h.upstreamMessage(ctx, err, true),
				BillsURL: billsOfStudentURL(c.in.NIS), ReceiptURL: paymentReceiptURL(c.in.NIS, c.ref),
			}))
			return
		}
		v := pages.PaymentView{NIS: c.in.NIS, Ref: c.ref, Today: c.today}
		status := http.StatusBadGateway
		switch probs, ok := bills.PayProblems(err, c.sel.IDs, c.fresh); {
		case ok:
			status = http.StatusConflict
			v.Problems = append(v.Problems, i18n.T(ctx, "payments.err.refused"))
			for _, p := range probs {
				v.Problems = append(v.Problems, problemMessage(ctx, p))
			}
		case errors.Is(err, billing.ErrValidation):
			status = http.StatusUnprocessableEntity
			v.General = i18n.T(ctx, "payments.not_recorded", h.upstreamMessage(ctx, err, true))
		default:
			v.General = h.upstreamMessage(ctx, err, true)
		}
		// Show the list as it is now; when the service cannot be read either, the message says so.
		general := v.General
		if _, st := h.loadPaymentLines(ctx, &v, c.sel.IDs); st != http.StatusOK && general != "" {
			v.General = general
		}
		h.render(w, r, status, pages.PaymentNew(v))
		return
	}
	var sum int64
	for _, b := range paid {
		sum += b.AmountPaid
	}
	if len(paid) == 0 {
		sum = c.sel.Total
	}
	h.addFlash(w, r, "success", i18n.T(ctx, "payments.ok", i18n.Rupiah(sum), c.in.NIS, c.ref))
	h.redirect(w, r, paymentReceiptURL(c.in.NIS, c.ref))
}
