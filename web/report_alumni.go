package web

import (
	"context"
	"net/http"
	"slices"

	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/reports"
	"github.com/sekolah/portal/internal/students"
	"github.com/sekolah/portal/views/pages"
)

// alumniURL is the alumni arrears with its filters.
func alumniURL(f reports.AlumniFilter) string {
	return withQuery("/reports/alumni", "status", f.Status, "class", f.Class)
}

// reportAlumni is the alumni arrears (former students who still owe, with what), its
// exports and its refresh.
func (h *Handler) reportAlumni(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	form := pages.AlumniForm{Status: q.Get("status"), Class: q.Get("class")}
	v := pages.AlumniView{Form: form, Classes: h.knownClasses(ctx)}
	filter := reports.AlumniFilter{Status: form.Status, Class: form.Class}
	if st := students.Status(filter.Status); filter.Status != "" && (!slices.Contains(students.Statuses, st) || st.Active()) {
		filter.Status, v.Form.Status = "", "" // an unknown standing: every former student
	}
	v.ReportShell = reportShell(alumniURL(filter))
	if format, ok, handled := h.exportFormat(w, r); handled {
		return
	} else if ok {
		h.export(w, r, format, reports.AlumniFilename(filter, h.reports.Today(), format), func(ex reports.Export) error {
			return h.reports.ExportAlumni(ctx, filter, ex)
		}, nil)
		return
	}
	if r.Method == http.MethodPost {
		h.reports.Refresh(ctx)
		h.redirect(w, r, v.URL)
		return
	}
	res, err := h.reports.Alumni(ctx, filter, false)
	status := http.StatusOK
	if err != nil {
		status = h.reportFailure(ctx, &v.ReportShell, err)
	} else {
		rep := res.Value
		v.Report = &pages.AlumniReport{Today: rep.Today, Students: len(rep.Rows), Former: rep.Former, Count: rep.Total.Count,
			Owed: rep.Total.Owed, Overdue: rep.Total.Overdue, Expired: rep.Total.Expired}
		var rows []reports.AlumniRow
		rows, v.Pager = pageOf(r, rep.Rows, v.URL)
		for _, a := range rows {
			row := pages.AlumniRow{NIS: a.NIS, Name: a.Name, Class: a.Class, Owed: a.Owed, Overdue: a.Overdue, Expired: a.Expired,
				Count: a.Count, ExpiredCount: a.ExpiredCount, StudentURL: studentURL(a.NIS),
				Standing: pages.StandingInfo{Status: a.Status, On: a.On, Note: a.Note}}
			for _, it := range a.Items {
				amount := it.DueToday
				if it.Expired {
					amount = it.Amount
				}
				row.Items = append(row.Items, pages.AlumniItem{Name: it.Name, Due: it.Due, Amount: amount, Late: it.Late, Expired: it.Expired})
			}
			v.Rows = append(v.Rows, row)
		}
		v.Fresh = h.freshness(ctx, res.Fresh, v.URL)
	}
	h.page(w, r, status, pages.Alumni(v), pages.AlumniResults(v))
}

// formerAmong finds the former students among the arrears report's rows: their
// standings by NIS, and on the report how many they are and what they owe, with a link
// to their own report (their arrears are counted like everyone's).
func (h *Handler) formerAmong(ctx context.Context, rows []ledger.OutstandingRow, rep *pages.OutstandingReport) map[string]pages.StandingInfo {
	out := map[string]pages.StandingInfo{}
	nis := make([]string, len(rows))
	for i, o := range rows {
		nis[i] = o.NIS
	}
	roster, err := h.students.ByNIS(ctx, nis)
	if err != nil {
		h.log.Warn("standings of the arrears report's students", "err", err)
		return out
	}
	for _, o := range rows {
		st, ok := roster[o.NIS]
		if !ok || students.StatusOf(st.Status).Active() {
			continue
		}
		out[o.NIS] = standingInfo(st)
		rep.Former++
		rep.FormerTotal += o.Total
	}
	rep.AlumniURL = alumniURL(reports.AlumniFilter{})
	return out
}
