package pages

import (
	"github.com/sekolah/portal/internal/reports"
	"github.com/sekolah/portal/views/components"
)

// ReportShell is what every report page has: where it is, how fresh, what went wrong.
type ReportShell struct {
	// URL is the report with its current filters (no offset, no format).
	URL   string
	Fresh Freshness
	// FormError is a filter the person must fix (the page answers 422).
	FormError string
	// Error is a failure without any figures to show.
	Error string
	Pager components.Pager
}

// PaymentsForm is the payments filter as typed.
type PaymentsForm struct {
	From, To, Account string
}

// PaymentsView is the payments report page.
type PaymentsView struct {
	ReportShell
	Form     PaymentsForm
	Accounts []string
	Report   *reports.PaymentsReport
	Rows     []reports.PaymentRow // this page
}

// OutstandingForm is the outstanding filter as typed.
type OutstandingForm struct {
	Class, Account, DueFrom, DueTo string
}

// OutstandingView is the outstanding report page.
type OutstandingView struct {
	ReportShell
	Form     OutstandingForm
	Classes  []string
	Accounts []string
	Report   *reports.OutstandingReport
	Rows     []reports.OutstandingRow
}

// StatementView is a student's statement page.
type StatementView struct {
	ReportShell
	NIS      string
	NotFound bool
	Report   *reports.Statement
	Rows     []reports.StatementRow
}

// AccountsForm is the accounts summary filter as typed.
type AccountsForm struct {
	From, To string
}

// AccountsView is the per account code summary page.
type AccountsView struct {
	ReportShell
	Form   AccountsForm
	Report *reports.AccountsReport
}

// ReportLink is one report on the reports index.
type ReportLink struct {
	Href, TitleKey, IntroKey, TestID string
}

// ReportsIndexView lists the reports.
type ReportsIndexView struct {
	Links []ReportLink
}
