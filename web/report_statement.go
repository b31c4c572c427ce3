package web

import (
	"errors"
	"net/http"
	"strings"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/reports"
	"github.com/sekolah/portal/views/pages"
)

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
	if r.Method == http.MethodPost {
		h.reports.Refresh(ctx)
		h.redirect(w, r, v.URL)
		return
	}
	res, err := h.reports.Statement(ctx, nis, false)
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
		v.Fresh = h.freshness(ctx, res.Fresh, v.URL)
	}
	h.page(w, r, status, pages.Statement(v), pages.StatementResults(v))
}
