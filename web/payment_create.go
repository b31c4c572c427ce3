package web

import (
	"cmp"
	"errors"
	"net/http"
	"strconv"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/changes"
	"github.com/sekolah/portal/internal/counter"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/views/pages"
)

// createPayment records a counter payment; the counter checks the choice once more
// against the service, so a component paid or expired since the confirmation is refused
// and the same page cannot pay twice. A payment whose outcome is unknown (timeout) is
// never retried: the person is sent to check first.
func (h *Handler) createPayment(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	req, total := readPaymentRequest(r)
	confirmed, perr := strconv.ParseInt(total, 10, 64)
	if perr != nil {
		confirmed = -1 // not the confirmation: it is shown again
	}
	p, err := h.counter.Pay(ctx, h.actor(r), req, confirmed)
	var changed *counter.TotalChanged
	var refused *counter.PayError
	var taken *counter.RefTakenError
	switch {
	case err == nil:
		h.addFlash(w, r, "success", i18n.T(ctx, "payments.ok", i18n.Rupiah(p.Paid), cmp.Or(p.Name, p.NIS), p.NIS, p.Ref))
		h.markReceiptOriginal(w, r, p.Ref)
		h.redirect(w, r, paymentReceiptURL(p.NIS, p.Ref))
	case errors.As(err, &changed):
		// Midnight passed (a penalty now applies) or the form was not the confirmation.
		v := h.paymentConfirmView(ctx, p)
		v.Warning = i18n.T(ctx, "payments.err.total_changed", i18n.Rupiah(changed.Total))
		h.render(w, r, http.StatusConflict, pages.PaymentConfirm(v))
	case errors.As(err, &taken):
		// Another student's payment carries the number (perhaps recorded since the
		// confirmation was shown): ask, with the same page, before sending anything.
		v := h.paymentConfirmView(ctx, p)
		v.RefTakenError = i18n.T(ctx, "payments.ref_taken_confirm")
		h.render(w, r, http.StatusConflict, pages.PaymentConfirm(v))
	case errors.As(err, &refused):
		h.paymentNotRecorded(w, r, req, p, refused)
	default:
		h.paymentChecksFailed(w, r, req, p, err)
	}
}

// paymentNotRecorded answers a payment the service refused or did not answer for.
func (h *Handler) paymentNotRecorded(w http.ResponseWriter, r *http.Request, req counter.Request, p counter.Payment, pe *counter.PayError) {
	ctx := r.Context()
	h.log.Warn("counter payment", "nis", p.NIS, "ref", p.Ref, "outcome", changes.Outcome(pe.Err), "err", pe.Err)
	if changes.Ambiguous(pe.Err) {
		h.render(w, r, http.StatusGatewayTimeout, pages.PaymentUnknown(pages.PaymentUnknownView{
			NIS: p.NIS, Ref: p.Ref, Message: h.upstreamMessage(ctx, pe.Err, true),
			BillsURL: billsOfStudentURL(p.NIS), ReceiptURL: paymentReceiptURL(p.NIS, p.Ref),
		}))
		return
	}
	var general string
	status := http.StatusBadGateway
	var list []string
	switch {
	case len(pe.Problems) > 0:
		status = http.StatusConflict
		list = append(list, i18n.T(ctx, "payments.err.refused"))
		for _, pr := range pe.Problems {
			list = append(list, problemMessage(ctx, pr))
		}
	case errors.Is(pe.Err, billing.ErrValidation):
		status = http.StatusUnprocessableEntity
		general = i18n.T(ctx, "payments.not_recorded", h.upstreamMessage(ctx, pe.Err, true))
	default:
		general = h.upstreamMessage(ctx, pe.Err, true)
	}
	// Show the list as it is now; when the service cannot be read either, the message says so.
	v := pages.PaymentView{NIS: p.NIS, Ref: p.Ref, Today: p.Today}
	if st, err := h.counter.Student(ctx, p.NIS); err == nil {
		v = h.paymentView(ctx, st, p.Ref, req.IDs)
	} else if general == "" {
		h.paymentStudentFailed(ctx, &v, err)
	}
	v.Problems = list
	if general != "" {
		v.General = general
	}
	h.render(w, r, status, pages.PaymentNew(v))
}
