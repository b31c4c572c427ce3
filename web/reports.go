package web

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/reports"
	"github.com/sekolah/portal/views/components"
	"github.com/sekolah/portal/views/pages"
)

// reportPageSize is how many rows a report shows per page on screen.
const reportPageSize = 50

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
		form.From = ledger.MonthStart(today).Format(time.DateOnly)
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
	return pages.ReportShell{URL: url, XLSXURL: exportURL(url, string(reports.XLSX)),
		CSVExcelIDURL: exportURL(url, string(reports.CSVExcelID)), CSVURL: exportURL(url, string(reports.CSV))}
}

// pageOf returns the rows of the page at the request's offset and its pager.
func pageOf[T any](r *http.Request, rows []T, url string) ([]T, components.Pager) {
	offset := min(offsetParam(r, reportPageSize), len(rows))
	page := rows[offset:min(offset+reportPageSize, len(rows))]
	return page, components.Pager{
		Offset: offset, Limit: reportPageSize, Shown: len(page), Total: len(rows), Target: "#report-results",
		URL: func(off int) string { return pageURL(url, off) },
	}
}

// reportFailure fills the page's error for a report that could not be read from the
// ledger (the figures never depend on the service answering).
func (h *Handler) reportFailure(ctx context.Context, s *pages.ReportShell, err error) int {
	if msg := rangeMessage(ctx, err); msg != "" {
		s.FormError = msg
		return http.StatusUnprocessableEntity
	}
	h.log.Error("report figures from the ledger", "report", s.URL, "err", err)
	s.Error = i18n.T(ctx, "ledger.unreadable")
	return http.StatusInternalServerError
}
