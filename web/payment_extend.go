package web

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/sekolah/portal/internal/changes"
	"github.com/sekolah/portal/internal/counter"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/views/pages"
)

// readExtendRequest reads the extension form (a GET's query or a POST's body).
func readExtendRequest(r *http.Request) (counter.ExtendRequest, string) {
	_ = r.ParseForm()
	return counter.ExtendRequest{
		NIS:      strings.TrimSpace(r.Form.Get("nis")),
		Ref:      r.Form.Get("ref"),
		ID:       strings.TrimSpace(r.Form.Get("component")),
		Until:    r.Form.Get("until"),
		ReuseRef: r.Form.Get("reuse_ref") == "yes",
	}, strings.TrimSpace(r.Form.Get("total"))
}

// extendView shapes a checked extension for its confirmation page.
func (h *Handler) extendView(ctx context.Context, req counter.ExtendRequest, x counter.Extension) pages.PaymentExtendView {
	v := pages.PaymentExtendView{
		NIS: x.NIS, Student: x.Name, Class: h.studentClass(ctx, x.NIS), Ref: strings.TrimSpace(req.Ref), ID: req.ID,
		Until: strings.TrimSpace(req.Until), Today: x.Today, Amount: x.Amount, Penalty: x.Penalty, Total: x.Total,
		BackURL: paymentNewURL(x.NIS),
	}
	if x.Line.Bill.ComponentID != "" {
		v.Line = paymentLine(ctx, x.Line, false)
		v.Expired = x.Line.Bill.Expiry
	}
	if v.Until == "" && !x.SuggestedUntil.IsZero() {
		v.Until = x.SuggestedUntil.Format("2006-01-02")
	}
	if v.Ref == "" {
		v.Ref = h.counter.SuggestRef(ctx)
	}
	if u := x.RefTaken; u != nil {
		v.RefTaken = i18n.T(ctx, "payments.ref_taken", x.Ref, u.Name, u.NIS, i18n.From(ctx).DateTime(u.PaidAt), i18n.Rupiah(u.Total))
	}
	return v
}

// extendPayment is the confirmation page of "perpanjang lalu terima": the expired item,
// the new expiry (suggested), the receipt number and what paying costs once extended.
// Problems of the receipt number are not said yet: the person has not typed one.
func (h *Handler) extendPayment(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	req, _ := readExtendRequest(r)
	x, err := h.counter.CheckExtension(ctx, req)
	status := http.StatusOK
	v := h.extendView(ctx, req, x)
	if err != nil && !x.Found() {
		pv := pages.PaymentView{NIS: req.NIS, Today: x.Today}
		h.render(w, r, h.paymentStudentFailed(ctx, &pv, err), pages.PaymentNew(pv))
		return
	}
	if probs, ok := problem.As(err); ok {
		msgs := problemMessages(ctx, probs)
		v.ComponentError, v.UntilError = msgs[counter.FieldComponent], msgs[counter.FieldUntil]
		if req.Ref != "" {
			v.RefError = msgs[counter.FieldRef]
		}
		if v.ComponentError != "" {
			status = http.StatusConflict
		}
	}
	h.render(w, r, status, pages.PaymentExtend(v))
}

// extendAndPay extends the expired item and takes its payment, as confirmed. Each way it
// can end is said as it is: nothing done, extended but not paid, or both.
func (h *Handler) extendAndPay(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	req, total := readExtendRequest(r)
	confirmed, perr := strconv.ParseInt(total, 10, 64)
	if perr != nil {
		confirmed = -1
	}
	x, err := h.counter.ExtendAndPay(ctx, h.actor(r), req, confirmed)
	p := i18n.From(ctx)
	var changed *counter.TotalChanged
	var taken *counter.RefTakenError
	var extendErr *counter.ExtendError
	var unpaid *counter.ExtendedNotPaid
	switch {
	case err == nil:
		h.addFlash(w, r, "success", p.T("payments.extend.ok", x.Line.Bill.Name, p.Day(x.Until), i18n.Rupiah(x.Paid), cmp.Or(x.Name, x.NIS), x.NIS, x.Ref))
		h.markReceiptOriginal(w, r, x.Ref)
		h.redirect(w, r, paymentReceiptURL(x.NIS, x.Ref))
	case errors.As(err, &changed):
		v := h.extendView(ctx, req, x)
		v.Warning = p.T("payments.err.total_changed", i18n.Rupiah(changed.Total))
		h.render(w, r, http.StatusConflict, pages.PaymentExtend(v))
	case errors.As(err, &taken):
		v := h.extendView(ctx, req, x)
		v.RefTakenError = p.T("payments.ref_taken_confirm")
		h.render(w, r, http.StatusConflict, pages.PaymentExtend(v))
	case errors.As(err, &extendErr):
		h.log.Warn("counter extension", "nis", x.NIS, "component", req.ID, "outcome", changes.Outcome(extendErr.Err), "err", extendErr.Err)
		v := h.extendView(ctx, req, x)
		key, status := "payments.extend.failed", upstreamStatus(extendErr.Err)
		if changes.Ambiguous(extendErr.Err) {
			key = "payments.extend.failed_unknown"
		}
		v.General = p.T(key, h.upstreamMessage(ctx, extendErr.Err, true))
		h.render(w, r, status, pages.PaymentExtend(v))
	case errors.As(err, &unpaid):
		// The expiry is extended (recorded); the payment is not: the counter form with the
		// fresh list, the item payable now, and exactly that said.
		h.log.Warn("counter payment after extension", "nis", x.NIS, "component", req.ID, "err", unpaid.Err)
		why := h.paymentFailure(ctx, unpaid.Err)
		v := pages.PaymentView{NIS: x.NIS, Ref: x.Ref, Today: x.Today}
		if st, rerr := h.counter.Student(ctx, x.NIS); rerr == nil {
			v = h.paymentView(ctx, st, x.Ref, []string{req.ID})
		}
		v.General = p.T("payments.extend.extended_unpaid", x.Line.Bill.Name, p.Day(unpaid.Until), why)
		h.render(w, r, http.StatusBadGateway, pages.PaymentNew(v))
	default:
		v := h.extendView(ctx, req, x)
		if probs, ok := problem.As(err); ok {
			msgs := problemMessages(ctx, probs)
			v.ComponentError, v.UntilError, v.RefError = msgs[counter.FieldComponent], msgs[counter.FieldUntil], msgs[counter.FieldRef]
			h.render(w, r, http.StatusUnprocessableEntity, pages.PaymentExtend(v))
			return
		}
		pv := pages.PaymentView{NIS: req.NIS, Today: x.Today}
		h.render(w, r, h.paymentStudentFailed(ctx, &pv, err), pages.PaymentNew(pv))
	}
}

// paymentFailure words why a payment after an extension was not recorded.
func (h *Handler) paymentFailure(ctx context.Context, err error) string {
	var pe *counter.PayError
	var changed *counter.TotalChanged
	switch {
	case errors.As(err, &pe) && len(pe.Problems) > 0:
		return problemMessage(ctx, pe.Problems[0])
	case errors.As(err, &pe):
		return h.upstreamMessage(ctx, pe.Err, true)
	case errors.As(err, &changed):
		return i18n.T(ctx, "payments.err.total_changed", i18n.Rupiah(changed.Total))
	}
	if probs, ok := problem.As(err); ok && len(probs) > 0 {
		return problemMessage(ctx, probs[0])
	}
	return h.upstreamMessage(ctx, err, true)
}

// paymentExtendURL is the extension page of an expired item at the counter.
func paymentExtendURL(nis, id, ref string) string {
	q := url.Values{"nis": {nis}, "component": {id}}
	if ref != "" {
		q.Set("ref", ref)
	}
	return "/payments/extend?" + q.Encode()
}
