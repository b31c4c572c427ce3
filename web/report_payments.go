package web

import (
	"context"
	"net/http"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/reports"
	"github.com/sekolah/portal/views/pages"
)

// paymentsReport shapes the payments report's figures for the page.
func paymentsReport(ctx context.Context, rep reports.PaymentsReport) *pages.PaymentsReport {
	day := func(d ledger.DayTotal) pages.PaymentDay {
		return pages.PaymentDay{Day: d.Day, Count: d.Count, Penalty: d.Penalty, Paid: d.Paid}
	}
	v := &pages.PaymentsReport{Total: day(rep.Total), Empty: len(rep.Rows) == 0}
	for _, d := range rep.Days {
		v.Days = append(v.Days, day(d))
	}
	v.Channels = channelBreakdown(ctx, rep.Channels)
	return v
}

// reportPayments is the payments received report, its exports and its refresh.
func (h *Handler) reportPayments(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	form, filter, msg := h.parsePaymentsForm(r)
	v := pages.PaymentsView{Form: form, Accounts: h.cfg.AccountCodes}
	v.ReportShell = reportShell(paymentsURL(filter.From, filter.To, filter.Account))
	if msg != "" {
		v.FormError = msg
		h.page(w, r, http.StatusUnprocessableEntity, pages.Payments(v), pages.PaymentsResults(v))
		return
	}
	if format, ok, handled := h.exportFormat(w, r); handled {
		return
	} else if ok {
		h.export(w, r, format, reports.PaymentsFilename(filter, format), func(ex reports.Export) error {
			return h.reports.ExportPayments(ctx, filter, ex)
		}, nil)
		return
	}
	if r.Method == http.MethodPost {
		h.reports.Refresh(ctx)
		h.redirect(w, r, v.URL)
		return
	}
	res, err := h.reports.Payments(ctx, filter, false)
	status := http.StatusOK
	if err != nil {
		status = h.reportFailure(ctx, &v.ReportShell, err)
	} else {
		v.Report = paymentsReport(ctx, res.Value)
		var rows []ledger.PaymentRow
		rows, v.Pager = pageOf(r, res.Value.Rows, v.URL)
		for _, p := range rows {
			row := pages.PaymentRow{PaidAt: p.PaidAt, NIS: p.NIS, Name: p.Name, Class: reports.ClassLabel(i18n.From(ctx), p.Class),
				Component: p.Component, Account: p.Account, Ref: p.Ref, Amount: p.Amount, Penalty: p.Penalty, Paid: p.Paid,
				StatementURL: statementURL(p.NIS)}
			row.Channel, row.ChannelLabel, row.Where = paymentWhere(ctx, p)
			v.Rows = append(v.Rows, row)
		}
		v.Fresh = h.freshness(ctx, res.Fresh, v.URL)
	}
	h.page(w, r, status, pages.Payments(v), pages.PaymentsResults(v))
}
