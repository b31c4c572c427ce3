package web

import (
	"context"
	"net/http"
	"strings"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/reports"
	"github.com/sekolah/portal/views/pages"
)

// outstandingRow shapes one student's arrears (or the total) for the page.
func outstandingRow(ctx context.Context, o ledger.OutstandingRow) pages.OutstandingRow {
	row := pages.OutstandingRow{NIS: o.NIS, Name: o.Name, Class: reports.ClassLabel(i18n.From(ctx), o.Class), Count: o.Count,
		OverdueCount: o.OverdueCount, ExpiredCount: o.ExpiredCount, Overdue: o.Overdue, NotYetDue: o.Total - o.Overdue,
		Total: o.Total, Penalty: o.Penalty, Expired: o.Expired, OldestDue: o.OldestDue, DaysLate: o.DaysLate}
	if o.NIS != "" {
		row.StatementURL, row.StudentURL = statementURL(o.NIS), studentURL(o.NIS)
		row.FollowUpURL, row.ReminderURL = followUpURL(o.NIS), reminderURL(o.NIS)
	}
	if f := o.LastFollowUp; f.ID != "" {
		row.LastAt, row.LastChannel, row.LastBy = f.At, f.Channel, f.ActorName
		if row.LastBy == "" {
			row.LastBy = f.Actor
		}
	}
	return row
}

// reportOutstanding is the arrears report (overdue only, or with all=1 every unpaid
// component), its exports and its refresh.
func (h *Handler) reportOutstanding(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	form := pages.OutstandingForm{Class: q.Get("class"), Account: strings.TrimSpace(q.Get("account")), DueFrom: q.Get("due_from"), DueTo: q.Get("due_to"),
		All: q.Get("all") == "1"}
	v := pages.OutstandingView{Form: form, Accounts: h.cfg.AccountCodes, NoClass: ledger.NoClass, CanFollowUp: can(ctx, auth.WriteBilling)}
	v.Classes = h.knownClasses(ctx)
	dueFrom, okFrom := parseDay(&v.Form.DueFrom)
	dueTo, okTo := parseDay(&v.Form.DueTo)
	filter := ledger.OutstandingFilter{Class: form.Class, Account: form.Account, DueFrom: dueFrom, DueTo: dueTo, Overdue: !form.All}
	url, switchURL := outstandingURL, outstandingAllURL
	if form.All {
		url, switchURL = outstandingAllURL, outstandingURL
	}
	v.ReportShell = reportShell(url(filter.Class, filter.Account, filter.DueFrom, filter.DueTo))
	v.SwitchURL = switchURL(filter.Class, filter.Account, filter.DueFrom, filter.DueTo)
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
		v.LettersURL, v.LettersCount = remindersURL(rep.Rows)
		var rows []ledger.OutstandingRow
		rows, v.Pager = pageOf(r, rep.Rows, v.URL)
		standings := h.formerAmong(ctx, rep.Rows, v.Report) // report_alumni.go: leavers named apart
		for _, o := range rows {
			row := outstandingRow(ctx, o)
			row.Standing = standings[o.NIS]
			v.Rows = append(v.Rows, row)
		}
		v.Fresh = h.freshness(ctx, res.Fresh, v.URL)
	}
	h.page(w, r, status, pages.Outstanding(v), pages.OutstandingResults(v))
}
