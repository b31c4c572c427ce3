package web

import (
	"errors"
	"net/http"
	"strings"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/counter"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/views/pages"
)

// markReceiptOriginal notes in the person's session that the payment ref was just recorded
// at this counter: the first showing of its receipt, right after, is the original.
func (h *Handler) markReceiptOriginal(w http.ResponseWriter, r *http.Request, ref string) {
	s := h.session(r)
	s.Values[keyFreshReceipt] = ref
	h.saveSession(w, r, s)
}

// takeReceiptOriginal reports whether this showing of ref's receipt is the original (the
// first after recording it here) and forgets it, so a reload, the back button, a link
// from the student's page or the bills list all show a copy.
func (h *Handler) takeReceiptOriginal(w http.ResponseWriter, r *http.Request, ref string) bool {
	s := h.session(r)
	fresh, _ := s.Values[keyFreshReceipt].(string)
	if fresh == "" || fresh != ref {
		return false
	}
	delete(s.Values, keyFreshReceipt)
	h.saveSession(w, r, s)
	return true
}

// showPaymentReceipt prints the receipt of one payment, read back from the service by its
// reference number, so it shows what the service recorded rather than what was asked.
// Every showing but the first right after the payment at this counter is marked SALINAN
// (a copy), on the page and in print.
func (h *Handler) showPaymentReceipt(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	nis := strings.TrimSpace(r.URL.Query().Get("nis"))
	ref := strings.TrimSpace(r.URL.Query().Get("ref"))
	rec, err := h.counter.Receipt(ctx, nis, ref)
	switch {
	case errors.Is(err, counter.ErrNoReceipt):
		h.renderError(w, r, http.StatusNotFound, i18n.T(ctx, "payments.receipt.not_found", ref, nis))
		return
	case err != nil:
		h.log.Warn("read receipt", "nis", nis, "ref", ref, "err", err)
		h.renderError(w, r, http.StatusBadGateway, h.upstreamMessage(ctx, err, false))
		return
	}
	prof, err := h.school.Profile(ctx)
	if err != nil {
		h.log.Error("read the school profile", "err", err)
	}
	v := pages.PaymentReceiptView{
		School: schoolHeaderOf(ctx, prof), Footer: prof.ReceiptFooter,
		NIS: rec.NIS, Student: rec.StudentName, Class: rec.Class, Ref: rec.Ref, PaidAt: rec.PaidAt,
		Amount: rec.Amount, Penalty: rec.Penalty, Total: rec.Total,
		Cashier: rec.Cashier, PrintedAt: h.now(), CanPay: can(ctx, auth.WriteBilling), BillsURL: billsOfStudentURL(rec.NIS),
		Copy: !h.takeReceiptOriginal(w, r, rec.Ref),
	}
	for _, l := range rec.Lines {
		b := l.Bill
		v.Lines = append(v.Lines, pages.PaymentReceiptLine{
			Name: b.Name, AccountCode: b.AccountCode, Due: b.Due,
			Amount: b.AmountPaid - l.Penalty, Penalty: l.Penalty, Paid: b.AmountPaid,
		})
	}
	h.render(w, r, http.StatusOK, pages.PaymentReceipt(v))
}
