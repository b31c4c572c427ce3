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

// showPaymentReceipt prints the receipt of one payment, read back from the service by its
// reference number, so it shows what the service recorded rather than what was asked.
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
