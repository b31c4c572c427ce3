package web

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/sekolah/portal/internal/closing"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/views/pages"
)

// printClosing is a closing's berita acara, printable on A4: the school's letterhead,
// the receipts counted as they were at the sign-off, the cash and its difference, and the
// signature lines. A reopened closing prints marked void.
func (h *Handler) printClosing(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	c, err := h.closing.Closing(ctx, chi.URLParam(r, "id"))
	switch {
	case errors.Is(err, closing.ErrNotFound):
		h.renderError(w, r, http.StatusNotFound, i18n.T(ctx, "closing.err.not_found"))
		return
	case err != nil:
		h.serverError(w, r, err)
		return
	}
	prof, err := h.school.Profile(ctx)
	if err != nil {
		h.log.Warn("closing: read the school's profile", "err", err)
	}
	p := i18n.From(ctx)
	d := pages.ClosingDoc{School: schoolHeaderOf(ctx, prof), City: prof.City,
		Weekday: p.T(fmt.Sprintf("closing.weekday.%d", int(c.Day.Weekday()))),
		Date:    fmt.Sprintf("%d %s %d", c.Day.Day(), p.MonthName(c.Day.Month()), c.Day.Year()),
		Cashier: c.CashierName, Bursar: prof.BursarName, BursarNIP: prof.BursarNIP, Principal: prof.PrincipalName,
		PrincipalNIP: prof.PrincipalNIP, Payments: c.Payments, Expected: c.Expected, Counted: c.Counted,
		Difference: c.Difference(), Reason: c.Reason, SignedAt: c.SignedAt, BackURL: closingURL(c.Day)}
	for _, x := range c.Receipts {
		d.Receipts = append(d.Receipts, closingReceipt(x))
	}
	if !c.Locked {
		d.Void = p.T("closing.doc_reopened", c.ReopenedName, p.DateTime(c.ReopenedAt), c.ReopenReason)
	}
	h.render(w, r, http.StatusOK, pages.ClosingPrint(d))
}
