package web

import (
	"context"
	"errors"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5/middleware"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/reports"
	"github.com/sekolah/portal/views/components"
	"github.com/sekolah/portal/views/pages"
	"github.com/sekolah/portal/views/viewctx"
)

// reportPageSize is how many rows a report shows per page on screen.
const reportPageSize = 50

// Audit action of a downloaded report: who took which figures out of the portal.
const actionReportExport = "report.export"

// reportsIndex lists the reports with this month's (or no) filters.
func (h *Handler) reportsIndex(w http.ResponseWriter, r *http.Request) {
	today := h.reports.Today()
	month := reports.MonthStart(today)
	h.render(w, r, http.StatusOK, pages.ReportsIndex(pages.ReportsIndexView{Links: []pages.ReportLink{
		{Href: paymentsURL(month, today, ""), TitleKey: "reports.payments.title", IntroKey: "reports.payments.intro", TestID: "report-payments"},
		{Href: outstandingURL("", "", time.Time{}, time.Time{}), TitleKey: "reports.outstanding.title", IntroKey: "reports.outstanding.intro", TestID: "report-outstanding"},
		{Href: "/reports/statement", TitleKey: "reports.statement.title", IntroKey: "reports.statement.intro", TestID: "report-statement"},
		{Href: accountsURL(month, today), TitleKey: "reports.accounts.title", IntroKey: "reports.accounts.intro", TestID: "report-accounts"},
	}}))
}

// parseDay reads a day filter (a date input's value, or a day typed by hand) and rewrites
// it as a date input sends it, so the form shows the day understood; empty is the zero day.
func parseDay(s *string) (time.Time, bool) {
	if *s = strings.TrimSpace(*s); *s == "" {
		return time.Time{}, true
	}
	t, err := i18n.ParseDay(*s)
	if err == nil {
		*s = t.Format(time.DateOnly)
	}
	return t, err == nil
}

// rangeMessage says what is wrong with a date range, in the person's language.
func rangeMessage(ctx context.Context, err error) string {
	switch {
	case errors.Is(err, reports.ErrRangeTooLong):
		return i18n.T(ctx, "reports.range_too_long", reports.MaxRangeDays)
	case errors.Is(err, reports.ErrBadRange):
		return i18n.T(ctx, "reports.bad_range")
	}
	return ""
}

// parsePaymentsForm reads from, to and account (defaults: this month so far).
func (h *Handler) parsePaymentsForm(r *http.Request) (pages.PaymentsForm, reports.PaymentsFilter, string) {
	ctx := r.Context()
	q := r.URL.Query()
	today := h.reports.Today()
	form := pages.PaymentsForm{From: q.Get("from"), To: q.Get("to"), Account: strings.TrimSpace(q.Get("account"))}
	if form.From == "" {
		form.From = reports.MonthStart(today).Format(time.DateOnly)
	}
	if form.To == "" {
		form.To = today.Format(time.DateOnly)
	}
	from, okFrom := parseDay(&form.From)
	to, okTo := parseDay(&form.To)
	if !okFrom || !okTo {
		return form, reports.PaymentsFilter{}, i18n.T(ctx, "form.invalid_date")
	}
	f := reports.PaymentsFilter{From: from, To: to, Account: form.Account}
	return form, f, rangeMessage(ctx, f.Check())
}

// reportShell is the frame of a report at url: its address and its files.
func reportShell(url string) pages.ReportShell {
	return pages.ReportShell{URL: url, XLSXURL: exportURL(url, string(reports.XLSX)), CSVURL: exportURL(url, string(reports.CSV))}
}

// paymentsReport shapes the payments report's figures for the page.
func paymentsReport(rep reports.PaymentsReport) *pages.PaymentsReport {
	day := func(d reports.DayTotal) pages.PaymentDay {
		return pages.PaymentDay{Day: d.Day, Count: d.Count, Penalty: d.Penalty, Paid: d.Paid}
	}
	v := &pages.PaymentsReport{Total: day(rep.Total), Empty: len(rep.Rows) == 0}
	for _, d := range rep.Days {
		v.Days = append(v.Days, day(d))
	}
	return v
}

// outstandingRow shapes one student's arrears (or the total) for the page.
func outstandingRow(ctx context.Context, o reports.OutstandingRow) pages.OutstandingRow {
	row := pages.OutstandingRow{NIS: o.NIS, Name: o.Name, Class: reports.ClassLabel(i18n.From(ctx), o.Class), Count: o.Count,
		Buckets: o.Buckets[:], Total: o.Total, OldestDue: o.OldestDue}
	if o.NIS != "" {
		row.StatementURL = statementURL(o.NIS)
	}
	return row
}

// accountRow shapes one account code's figures for the page, linked to the reports that
// make them up.
func accountRow(a reports.AccountRow, f reports.PaymentsFilter) pages.AccountRow {
	return pages.AccountRow{Account: a.Account, Payments: a.Payments, Amount: a.Amount, Penalty: a.Penalty, Paid: a.Paid,
		NotYetDue: a.NotYetDue, Overdue: a.Overdue, Outstanding: a.Outstanding,
		PaymentsURL: paymentsURL(f.From, f.To, a.Account), OutstandingURL: outstandingURL("", a.Account, time.Time{}, time.Time{})}
}

// pageOf returns the rows of the page at the request's offset and its pager.
func pageOf[T any](r *http.Request, rows []T, url string) ([]T, components.Pager) {
	offset, _ := strconv.Atoi(r.URL.Query().Get("offset"))
	offset = min(max(offset, 0), len(rows))
	page := rows[offset:min(offset+reportPageSize, len(rows))]
	return page, components.Pager{
		Offset: offset, Limit: reportPageSize, Shown: len(page), Total: len(rows), Target: "#report-results",
		URL: func(off int) string { return pageURL(url, off) },
	}
}

// reportFailure fills the page's error for a report that could not be computed.
func (h *Handler) reportFailure(ctx context.Context, s *pages.ReportShell, err error) int {
	if msg := rangeMessage(ctx, err); msg != "" {
		s.FormError = msg
		return http.StatusUnprocessableEntity
	}
	h.log.Error("report figures", "report", s.URL, "err", err)
	s.Error = i18n.T(ctx, "dashboard.unavailable", h.upstreamMessage(ctx, err, false))
	return http.StatusBadGateway
}

// exportFormat reads ?format=; ok is false when there is none (the page is wanted).
func (h *Handler) exportFormat(w http.ResponseWriter, r *http.Request) (format reports.Format, ok, handled bool) {
	s := r.URL.Query().Get("format")
	if s == "" || r.Method != http.MethodGet {
		return "", false, false
	}
	f, valid := reports.ParseFormat(s)
	if !valid {
		h.renderError(w, r, http.StatusBadRequest, i18n.T(r.Context(), "reports.bad_format"))
		return "", false, true
	}
	return f, true, false
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
	res, err := h.reports.Payments(ctx, filter, r.Method == http.MethodPost)
	if r.Method == http.MethodPost {
		h.redirect(w, r, v.URL)
		return
	}
	status := http.StatusOK
	if err != nil {
		status = h.reportFailure(ctx, &v.ReportShell, err)
	} else {
		v.Report = paymentsReport(res.Value)
		var rows []reports.PaymentRow
		rows, v.Pager = pageOf(r, res.Value.Rows, v.URL)
		for _, p := range rows {
			v.Rows = append(v.Rows, pages.PaymentRow{PaidAt: p.PaidAt, NIS: p.NIS, Name: p.Name, Class: reports.ClassLabel(i18n.From(ctx), p.Class),
				Component: p.Component, Account: p.Account, Ref: p.Ref, Amount: p.Amount, Penalty: p.Penalty, Paid: p.Paid,
				StatementURL: statementURL(p.NIS)})
		}
		v.Fresh = h.freshness(ctx, res.At, res.Warning, v.URL)
	}
	h.page(w, r, status, pages.Payments(v), pages.PaymentsResults(v))
}

// reportOutstanding is the outstanding and arrears report, its exports and its refresh.
func (h *Handler) reportOutstanding(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	form := pages.OutstandingForm{Class: q.Get("class"), Account: strings.TrimSpace(q.Get("account")), DueFrom: q.Get("due_from"), DueTo: q.Get("due_to")}
	v := pages.OutstandingView{Form: form, Accounts: h.cfg.AccountCodes, NoClass: reports.NoClass}
	classes, err := h.db.Classes(ctx)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	v.Classes = classes
	dueFrom, okFrom := parseDay(&v.Form.DueFrom)
	dueTo, okTo := parseDay(&v.Form.DueTo)
	filter := reports.OutstandingFilter{Class: form.Class, Account: form.Account, DueFrom: dueFrom, DueTo: dueTo}
	v.ReportShell = reportShell(outstandingURL(filter.Class, filter.Account, filter.DueFrom, filter.DueTo))
	switch {
	case !okFrom || !okTo:
		v.FormError = i18n.T(ctx, "form.invalid_date")
	default:
		v.FormError = rangeMessage(ctx, filter.Check())
	}
	if v.FormError != "" {
		h.page(w, r, http.StatusUnprocessableEntity, pages.Outstanding(v), pages.OutstandingResults(v))
		return
	}
	if format, ok, handled := h.exportFormat(w, r); handled {
		return
	} else if ok {
		h.export(w, r, format, reports.OutstandingFilename(filter, h.reports.Today(), format), func(ex reports.Export) error {
			return h.reports.ExportOutstanding(ctx, filter, ex)
		}, nil)
		return
	}
	res, err := h.reports.Outstanding(ctx, filter, r.Method == http.MethodPost)
	if r.Method == http.MethodPost {
		h.redirect(w, r, v.URL)
		return
	}
	status := http.StatusOK
	if err != nil {
		status = h.reportFailure(ctx, &v.ReportShell, err)
	} else {
		rep := res.Value
		v.Report = &pages.OutstandingReport{Today: rep.Today, Students: len(rep.Rows), Total: outstandingRow(ctx, rep.Total)}
		for _, k := range reports.BucketKeys() {
			v.Report.BucketKeys = append(v.Report.BucketKeys, k)
		}
		var rows []reports.OutstandingRow
		rows, v.Pager = pageOf(r, rep.Rows, v.URL)
		for _, o := range rows {
			v.Rows = append(v.Rows, outstandingRow(ctx, o))
		}
		v.Fresh = h.freshness(ctx, res.At, res.Warning, v.URL)
	}
	h.page(w, r, status, pages.Outstanding(v), pages.OutstandingResults(v))
}

// reportStatement is one student's statement, its exports and its refresh.
func (h *Handler) reportStatement(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	nis := strings.TrimSpace(r.URL.Query().Get("nis"))
	v := pages.StatementView{NIS: nis}
	v.ReportShell = reportShell(statementURL(nis))
	if nis == "" {
		h.page(w, r, http.StatusOK, pages.Statement(v), pages.StatementResults(v))
		return
	}
	notFound := func() {
		v.NotFound = true
		h.page(w, r, http.StatusNotFound, pages.Statement(v), pages.StatementResults(v))
	}
	if format, ok, handled := h.exportFormat(w, r); handled {
		return
	} else if ok {
		h.export(w, r, format, reports.StatementFilename(nis, h.reports.Today(), format), func(ex reports.Export) error {
			return h.reports.ExportStatement(ctx, nis, ex)
		}, notFound)
		return
	}
	res, err := h.reports.Statement(ctx, nis, r.Method == http.MethodPost)
	if r.Method == http.MethodPost {
		h.redirect(w, r, v.URL)
		return
	}
	status := http.StatusOK
	switch {
	case errors.Is(err, billing.ErrNotFound):
		notFound()
		return
	case err != nil:
		status = h.reportFailure(ctx, &v.ReportShell, err)
	default:
		st := res.Value
		v.Report = &pages.StatementReport{NIS: st.NIS, Name: st.Name, Class: reports.ClassLabel(i18n.From(ctx), st.Class),
			StudentURL: studentURL(st.NIS), Empty: len(st.Rows) == 0, Amount: st.Amount, Paid: st.Paid, Owed: st.Owed}
		var rows []reports.StatementRow
		rows, v.Pager = pageOf(r, st.Rows, v.URL)
		for _, s := range rows {
			v.Rows = append(v.Rows, pages.StatementRow{Due: s.Due, Component: s.Component, Account: s.Account, Amount: s.Amount,
				Penalty: s.Penalty, Status: string(s.Status), PaidAt: s.PaidAt, Paid: s.Paid, DueToday: s.DueToday, Running: s.Running})
		}
		v.Fresh = h.freshness(ctx, res.At, res.Warning, v.URL)
	}
	h.page(w, r, status, pages.Statement(v), pages.StatementResults(v))
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
	res, err := h.reports.Accounts(ctx, filter, r.Method == http.MethodPost)
	if r.Method == http.MethodPost {
		h.redirect(w, r, v.URL)
		return
	}
	status := http.StatusOK
	if err != nil {
		status = h.reportFailure(ctx, &v.ReportShell, err)
	} else {
		rep := res.Value
		v.Report = &pages.AccountsReport{Today: rep.Today, Total: accountRow(rep.Total, rep.Filter)}
		for _, a := range rep.Rows {
			v.Report.Rows = append(v.Report.Rows, accountRow(a, rep.Filter))
		}
		v.Fresh = h.freshness(ctx, res.At, res.Warning, v.URL)
	}
	h.page(w, r, status, pages.Accounts(v), pages.AccountsResults(v))
}

// flushWriter lets the export push what it has written to the client.
type flushWriter struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

func (f flushWriter) Write(p []byte) (int, error) { return f.w.Write(p) }

// Flush sends what is buffered; a writer that cannot flush simply sends it later.
func (f flushWriter) Flush() { _ = f.rc.Flush() }

// export streams a report file. The response starts (headers sent and flushed) once the
// first data has been read, so a failure before that is still an ordinary error page; a
// failure after it aborts the connection, so the browser reports a failed download
// instead of saving a file that looks complete but is not.
// notFound, when set, answers for an unknown student.
func (h *Handler) export(w http.ResponseWriter, r *http.Request, format reports.Format, filename string, run func(reports.Export) error, notFound func()) {
	ctx := r.Context()
	rc := http.NewResponseController(w)
	started := false
	p, _ := viewctx.CurrentPerson(ctx)
	ex := reports.Export{
		Format: format, W: flushWriter{w, rc}, Printer: i18n.From(ctx), By: p.DisplayName, At: h.now(),
		Start: func() {
			started = true
			hd := w.Header()
			hd.Set("Content-Type", format.ContentType())
			hd.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": filename}))
			hd.Set("Cache-Control", "no-store")
			w.WriteHeader(http.StatusOK)
			_ = rc.Flush()
		},
	}
	err := run(ex)
	target := r.URL.Path + "?" + r.URL.RawQuery
	switch {
	case err == nil:
		h.audit(r, actionReportExport, target, "ok", filename)
	case started:
		h.log.Error("report export failed mid-stream", "path", r.URL.Path, "err", err,
			"request_id", middleware.GetReqID(ctx))
		h.audit(r, actionReportExport, target, "failed", filename)
		panic(http.ErrAbortHandler)
	case errors.Is(err, billing.ErrNotFound) && notFound != nil:
		notFound()
	case rangeMessage(ctx, err) != "":
		h.renderError(w, r, http.StatusUnprocessableEntity, rangeMessage(ctx, err))
	default:
		h.log.Error("report export", "path", r.URL.Path, "err", err, "request_id", middleware.GetReqID(ctx))
		h.renderError(w, r, http.StatusBadGateway, i18n.T(ctx, "reports.export_failed", h.upstreamMessage(ctx, err, false)))
	}
}
