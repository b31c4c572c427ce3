package web

import (
	"context"
	"net/http"
	"strings"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/reports"
	"github.com/sekolah/portal/views/pages"
)

// outstandingRow shapes one student's arrears (or the total) for the page.
func outstandingRow(ctx context.Context, o reports.OutstandingRow) pages.OutstandingRow {
	row := pages.OutstandingRow{NIS: o.NIS, Name: o.Name, Class: reports.ClassLabel(i18n.From(ctx), o.Class), Count: o.Count,
		Buckets: o.Buckets[:], Total: o.Total, OldestDue: o.OldestDue}
	if o.NIS != "" {
		row.StatementURL = statementURL(o.NIS)
	}
	return row
}

// reportOutstanding is the outstanding and arrears report, its exports and its refresh.
func (h *Handler) reportOutstanding(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	form := pages.OutstandingForm{Class: q.Get("class"), Account: strings.TrimSpace(q.Get("account")), DueFrom: q.Get("due_from"), DueTo: q.Get("due_to")}
	v := pages.OutstandingView{Form: form, Accounts: h.cfg.AccountCodes, NoClass: reports.NoClass}
	v.Classes = h.knownClasses(ctx)
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
	if r.Method == http.MethodPost {
		h.reports.Refresh(ctx)
		h.redirect(w, r, v.URL)
		return
	}
	res, err := h.reports.Outstanding(ctx, filter, false)
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
		v.Fresh = h.freshness(ctx, res.Fresh, v.URL)
	}
	h.page(w, r, status, pages.Outstanding(v), pages.OutstandingResults(v))
}
