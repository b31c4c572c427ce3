package pages

import (
	"time"

	"github.com/sekolah/portal/views/components"
)

// ReportShell is what every report page has: where it is, how fresh, what went wrong.
type ReportShell struct {
	// URL is the report with its current filters (no offset, no format).
	URL string
	// XLSXURL, CSVExcelIDURL and CSVURL are the report as files, with the filters on
	// screen: Excel, CSV for Excel set to Indonesian (;), CSV with commas.
	XLSXURL, CSVExcelIDURL, CSVURL string
	Fresh                          Freshness
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
	// Report is nil until there are figures to show.
	Report *PaymentsReport
	Rows   []PaymentRow // this page
}

// PaymentsReport is the payments report's figures: per day and in total.
type PaymentsReport struct {
	Days  []PaymentDay // days with payments only
	Total PaymentDay
	// Empty: no payment in the range at all.
	Empty bool
}

// PaymentDay is what was paid on one day (or in total).
type PaymentDay struct {
	Day           time.Time
	Count         int
	Penalty, Paid int64
}

// PaymentRow is one payment of the list.
type PaymentRow struct {
	PaidAt                                    time.Time
	NIS, Name, Class, Component, Account, Ref string
	Amount, Penalty, Paid                     int64
	StatementURL                              string
}

// OutstandingForm is the outstanding filter as typed. All shows every unpaid
// component; without it the report is the arrears (overdue only).
type OutstandingForm struct {
	Class, Account, DueFrom, DueTo string
	All                            bool
}

// OutstandingView is the arrears report page.
type OutstandingView struct {
	ReportShell
	Form     OutstandingForm
	Classes  []string
	Accounts []string
	// NoClass is the class filter's value for the students without a class.
	NoClass string
	// SwitchURL is the same report with the other scope (overdue only ⇄ all unpaid).
	SwitchURL string
	// CanFollowUp offers the WhatsApp follow-up on each row (finance staff).
	CanFollowUp bool
	// LettersURL prints the reminders of the report's students with something overdue,
	// LettersCount of them ("" : none).
	LettersURL   string
	LettersCount int
	Report       *OutstandingReport
	Rows         []OutstandingRow
}

// OutstandingReport is the arrears report's figures.
type OutstandingReport struct {
	Today    time.Time
	Students int
	Total    OutstandingRow
	// Former counts the former students among them (graduated, moved, left) and what
	// they owe; AlumniURL is their own report.
	Former      int
	FormerTotal int64
	AlumniURL   string
}

// OutstandingRow is one student's arrears (or the total): the overdue part, the not yet
// due part (all unpaid only), what that costs today, the expired unpaid beside it, the
// oldest due date and the last follow-up.
type OutstandingRow struct {
	NIS, Name, Class          string
	Count, OverdueCount       int
	ExpiredCount              int
	Overdue, NotYetDue, Total int64
	Penalty, Expired          int64
	OldestDue                 time.Time
	DaysLate                  int
	StatementURL, StudentURL  string
	FollowUpURL, ReminderURL  string
	LastAt                    time.Time
	LastChannel, LastBy       string
	// Standing is the student's status: a former student's is named beside them.
	Standing StandingInfo
}

// StatementView is a student's statement page.
type StatementView struct {
	ReportShell
	NIS      string
	NotFound bool
	Report   *StatementReport
	Rows     []StatementRow
}

// StatementReport is the head and totals of a student's statement.
type StatementReport struct {
	NIS, Name, Class   string
	StudentURL         string
	Empty              bool
	Amount, Paid, Owed int64
}

// StatementRow is one component of the statement.
type StatementRow struct {
	Due                     time.Time
	Component, Account      string
	Amount, Penalty         int64
	Status                  string // provisioned, overdue, paid, expired
	PaidAt                  time.Time
	Paid, DueToday, Running int64
}

// rowClass marks the rows that need the eye.
func (r StatementRow) rowClass() string {
	switch r.Status {
	case "overdue":
		return "is-overdue"
	case "paid":
		return "is-paid"
	}
	return ""
}

// AccountsForm is the accounts summary filter as typed.
type AccountsForm struct {
	From, To string
}

// AccountsView is the per account code summary page.
type AccountsView struct {
	ReportShell
	Form   AccountsForm
	Report *AccountsReport
}

// AccountsReport is the per account code summary's figures.
type AccountsReport struct {
	Today time.Time
	Rows  []AccountRow
	Total AccountRow
}

// AccountRow is one account code (or the total).
type AccountRow struct {
	Account                                                string
	Payments                                               int
	Amount, Penalty, Paid, NotYetDue, Overdue, Outstanding int64
	// PaymentsURL and OutstandingURL are the reports that make up its figures.
	PaymentsURL, OutstandingURL string
}

// ReportLink is one report on the reports index.
type ReportLink struct {
	Href, TitleKey, IntroKey, TestID string
}

// ReportsIndexView lists the reports.
type ReportsIndexView struct {
	Links []ReportLink
}
