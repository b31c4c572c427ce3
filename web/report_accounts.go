package web

import (
	"net/http"
	"time"

	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/reports"
	"github.com/sekolah/portal/views/pages"
)

// accountRow shapes one account code's figures for the page, linked to the reports that
// make them up.
func accountRow(a ledger.AccountRow, f reports.PaymentsFilter) pages.AccountRow {
	return pages.AccountRow{Account: a.Account, Payments: a.Payments, Amount: a.Amount, Penalty: a.Penalty, Paid: a.Paid,
		NotYetDue: a.NotYetDue, Overdue: a.Overdue, Outstanding: a.Outstanding,
		PaymentsURL: paymentsURL(f.From, f.To, a.Account), OutstandingURL: outstandingAllURL("", a.Account, time.Time{}, time.Time{})}
}

// reportAccounts is the per account code summary, its exports and its refresh.
func (h *Handler) reportAccounts(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	pf, filter, msg := h.parsePaymentsForm(r)
	filter.Account = ""
	v := pages.AccountsView{Form: pages.AccountsForm{From: pf.From, To: pf.To}}
	v.ReportShell = reportShell(accountsURL(filter.From, filter.To))
	if msg != "" {
		v.FormError = msg
		h.page(w, r, http.StatusUnprocessableEntity, pages.Accounts(v), pages.AccountsResults(v))
		return
	}
	if format, ok, handled := h.exportFormat(w, r); handled {
		return
	} else if ok {
		h.export(w, r, format, reports.AccountsFilename(filter, format), func(ex reports.Export) error {
			return h.reports.ExportAccounts(ctx, filter, ex)
		}, nil)
		return
	}
	if r.Method == http.MethodPost {
		h.reports.Refresh(ctx)
		h.redirect(w, r, v.URL)
		return
	}
	res, err := h.reports.Accounts(ctx, filter, false)
	status := http.StatusOK
	if err != nil {
		status = h.reportFailure(ctx, &v.ReportShell, err)
	} else {
		rep := res.Value
		v.Report = &pages.AccountsReport{Today: rep.Today, Total: accountRow(rep.Total, rep.Filter)}
		for _, a := range rep.Rows {
			v.Report.Rows = append(v.Report.Rows, accountRow(a, rep.Filter))
		}
		v.Fresh = h.freshness(ctx, res.Fresh, v.URL)
	}
	h.page(w, r, status, pages.Accounts(v), pages.AccountsResults(v))
}
