package web

import (
	"net/http"
	"time"

	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/views/pages"
)

// reportsIndex lists the reports with this month's (or no) filters.
func (h *Handler) reportsIndex(w http.ResponseWriter, r *http.Request) {
	today := h.reports.Today()
	month := ledger.MonthStart(today)
	h.render(w, r, http.StatusOK, pages.ReportsIndex(pages.ReportsIndexView{Links: []pages.ReportLink{
		{Href: paymentsURL(month, today, ""), TitleKey: "reports.payments.title", IntroKey: "reports.payments.intro", TestID: "report-payments"},
		{Href: outstandingURL("", "", time.Time{}, time.Time{}), TitleKey: "reports.outstanding.title", IntroKey: "reports.outstanding.intro", TestID: "report-outstanding"},
		{Href: "/reports/statement", TitleKey: "reports.statement.title", IntroKey: "reports.statement.intro", TestID: "report-statement"},
		{Href: accountsURL(month, today), TitleKey: "reports.accounts.title", IntroKey: "reports.accounts.intro", TestID: "report-accounts"},
		{Href: "/reports/alumni", TitleKey: "reports.alumni.title", IntroKey: "reports.alumni.intro", TestID: "report-alumni"},
	}}))
}
