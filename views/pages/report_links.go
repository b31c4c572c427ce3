package pages

import (
	"net/url"
	"strconv"
	"time"
)

// Where every figure of the dashboard and the reports links to: the bills list (built by
// the bills area; its query parameters are state, account, due_from, due_to, paid_from,
// paid_to, nis, notes, ref) or the report that makes the figure up.

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

// PaymentsURL is the payments report of a range, optionally of one account code.
func PaymentsURL(from, to time.Time, account string) string {
	return withQuery("/reports/payments", "from", dayParam(from), "to", dayParam(to), "account", account)
}

// OutstandingURL is the outstanding report with its filters (class "-": no class).
func OutstandingURL(class, account string, dueFrom, dueTo time.Time) string {
	return withQuery("/reports/outstanding", "class", class, "account", account, "due_from", dayParam(dueFrom), "due_to", dayParam(dueTo))
}

// StatementURL is one student's statement.
func StatementURL(nis string) string { return withQuery("/reports/statement", "nis", nis) }

// AccountsURL is the per account code summary of a range.
func AccountsURL(from, to time.Time) string {
	return withQuery("/reports/accounts", "from", dayParam(from), "to", dayParam(to))
}

// BillQuery is a bills list filter.
type BillQuery struct {
	State            string // provisioned, paid, expired, all
	Account          string
	DueFrom, DueTo   time.Time
	PaidFrom, PaidTo time.Time
	NIS              string
}

// BillsURL is the bills list with q's filters.
func BillsURL(q BillQuery) string {
	return withQuery("/bills", "state", q.State, "account", q.Account, "due_from", dayParam(q.DueFrom), "due_to", dayParam(q.DueTo),
		"paid_from", dayParam(q.PaidFrom), "paid_to", dayParam(q.PaidTo), "nis", q.NIS)
}

// StudentURL is a student's page.
func StudentURL(nis string) string { return "/students/" + url.PathEscape(nis) }

// ExportURL is a report URL with the export format added.
func ExportURL(reportURL, format string) string {
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

// PageURL is a report URL at another page offset.
func PageURL(reportURL string, offset int) string {
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

var zeroDay time.Time
