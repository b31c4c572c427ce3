package web

import (
	"net/url"
	"strconv"
	"time"

	"github.com/sekolah/portal/internal/billlist"
	"github.com/sekolah/portal/views/pages"
)

// The addresses of the portal's pages, built in one place: every handler and view model
// links with these. The dashboard and the reports link each figure to what makes it up:
// the bills list (its query parameters are billlist's) or a report.

// dayParam is a calendar day as the filters take it (YYYY-MM-DD); zero is empty.
func dayParam(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.DateOnly)
}

func withQuery(path string, kv ...string) string {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			v.Set(kv[i], kv[i+1])
		}
	}
	if len(v) == 0 {
		return path
	}
	return path + "?" + v.Encode()
}

// paymentsURL is the payments report of a range, optionally of one account code.
func paymentsURL(from, to time.Time, account string) string {
	return withQuery("/reports/payments", "from", dayParam(from), "to", dayParam(to), "account", account)
}

// outstandingURL is the arrears report (overdue only) with its filters (class "-": no class).
func outstandingURL(class, account string, dueFrom, dueTo time.Time) string {
	return withQuery("/reports/outstanding", "class", class, "account", account, "due_from", dayParam(dueFrom), "due_to", dayParam(dueTo))
}

// outstandingAllURL is the report of every unpaid component (not yet due included).
func outstandingAllURL(class, account string, dueFrom, dueTo time.Time) string {
	return withQuery("/reports/outstanding", "all", "1", "class", class, "account", account, "due_from", dayParam(dueFrom), "due_to", dayParam(dueTo))
}

// statementURL is one student's statement.
func statementURL(nis string) string { return withQuery("/reports/statement", "nis", nis) }

// accountsURL is the per account code summary of a range.
func accountsURL(from, to time.Time) string {
	return withQuery("/reports/accounts", "from", dayParam(from), "to", dayParam(to))
}

// billsURL is the bills list with f's filters.
func billsURL(f billlist.Filter) string { return f.URL("/bills") }

// billsOfStudentURL is the bills list on every bill of one student.
func billsOfStudentURL(nis string) string {
	return billsURL(billlist.Filter{State: billlist.StateAll, NIS: nis})
}

// studentURL is a student's page.
func studentURL(nis string) string { return "/students/" + url.PathEscape(nis) }

// paymentReceiptURL is the receipt of one counter payment.
func paymentReceiptURL(nis, ref string) string {
	return "/payments/receipt?" + url.Values{"nis": {nis}, "ref": {ref}}.Encode()
}

// paymentNewURL is the counter form for one student.
func paymentNewURL(nis string) string { return "/payments/new?" + url.Values{"nis": {nis}}.Encode() }

// uploadURL is one upload's page.
func uploadURL(id string) string { return "/uploads/" + url.PathEscape(id) }

// exportURL is a report URL with the export format added.
func exportURL(reportURL, format string) string {
	u, err := url.Parse(reportURL)
	if err != nil {
		return reportURL
	}
	q := u.Query()
	q.Del("offset")
	q.Set("format", format)
	u.RawQuery = q.Encode()
	return u.String()
}

// pageURL is a report URL at another page offset.
func pageURL(reportURL string, offset int) string {
	u, err := url.Parse(reportURL)
	if err != nil {
		return reportURL
	}
	q := u.Query()
	q.Del("offset")
	if offset > 0 {
		q.Set("offset", strconv.Itoa(offset))
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// studentsURL is the roster address with the filter kept.
func studentsURL(f pages.StudentsFilter, offset int) string {
	u := url.Values{}
	if f.Query != "" {
		u.Set("q", f.Query)
	}
	if f.Class != "" {
		u.Set("class", f.Class)
	}
	if f.Status != "" && f.Status != listActive {
		u.Set("status", f.Status)
	}
	if offset > 0 {
		u.Set("offset", strconv.Itoa(offset))
	}
	if len(u) == 0 {
		return "/students"
	}
	return "/students?" + u.Encode()
}

// letterURL is a student's bill letter for parents.
func letterURL(nis string) string { return studentURL(nis) + "/letter" }

// reminderURL is a student's arrears reminder letter; followUpURL records a follow-up.
func reminderURL(nis string) string { return studentURL(nis) + "/reminder" }

// followUpURL is where a follow-up of a student's arrears is posted (channel=…).
func followUpURL(nis string) string { return studentURL(nis) + "/followup" }
