package web_test

// The portal against a service that is as loose as contract version 2 allows
// (-max-limit 300 -cap-silently -zoneless -tz UTC) at 01:30 in Jakarta, when
// the service's date is still yesterday: the dashboard and the reports show
// the figures computed here, independently, from the sandbox's own data read
// over raw HTTP. It asserts only what the pages show, so it holds whatever
// feeds them (today a walk of the service, later the ledger).

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/sandbox"
)

// e2eNow is 01:30 on Monday 15 March 2027 in Jakarta: 18:30 on the 14th in UTC.
var e2eNow = time.Date(2027, time.March, 14, 18, 30, 0, 0, time.UTC)

// rawService reads the sandbox with nothing of the portal's client: its own
// password (the UTC date, which the test knows), its own paging, its own
// reading of zoneless timestamps as UTC.
type rawService struct {
	t   *testing.T
	url string
	sb  *sandbox.Server
}

func (s rawService) do(method, path string, body any) json.RawMessage {
	s.t.Helper()
	var rd *strings.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = strings.NewReader(string(b))
	} else {
		rd = strings.NewReader("")
	}
	req, _ := http.NewRequest(method, s.url+path, rd)
	req.SetBasicAuth("portal", sandbox.DailyPassword("issued-secret", s.sb.Now(), time.UTC))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	var env struct {
		StatusCode int             `json:"status_code"`
		StatusDesc string          `json:"status_desc"`
		Data       json.RawMessage `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil || resp.StatusCode != http.StatusOK {
		s.t.Fatalf("%s %s: %d %q %v", method, path, resp.StatusCode, env.StatusDesc, err)
	}
	return env.Data
}

// rawRecord is a component as the sandbox wrote it.
type rawRecord struct {
	ID, State, Due, Expiry, Active string
	PaidDate, NIS                  string
	Amount, Penalty, AmountPaid    int64
}

func (r *rawRecord) UnmarshalJSON(b []byte) error {
	var w struct {
		ID         string  `json:"bill_component_id"`
		NIS        string  `json:"bill_key"`
		State      string  `json:"state"`
		Due        string  `json:"due_date"`
		Expiry     string  `json:"expiry_date"`
		Active     *string `json:"active_date"`
		PaidDate   *string `json:"paid_date"`
		Amount     int64   `json:"amount"`
		Penalty    int64   `json:"penalty_amount"`
		AmountPaid int64   `json:"amount_paid"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*r = rawRecord{ID: w.ID, NIS: w.NIS, State: w.State, Due: w.Due, Expiry: w.Expiry, Amount: w.Amount, Penalty: w.Penalty, AmountPaid: w.AmountPaid}
	if w.Active != nil {
		r.Active = *w.Active
	}
	if w.PaidDate != nil {
		r.PaidDate = *w.PaidDate
	}
	return nil
}

// all reads every component, 300 a page (the service's cap) until an empty page.
func (s rawService) all() []rawRecord {
	s.t.Helper()
	var out []rawRecord
	seen := map[string]bool{}
	for offset := 0; ; offset += 300 {
		var page []rawRecord
		if err := json.Unmarshal(s.do("GET", fmt.Sprintf("/bill_component/search/biller?offset=%d&limit=300", offset), nil), &page); err != nil {
			s.t.Fatal(err)
		}
		if len(page) == 0 {
			return out
		}
		for _, r := range page {
			if seen[r.ID] {
				s.t.Fatalf("%s on two pages", r.ID)
			}
			seen[r.ID] = true
			out = append(out, r)
		}
	}
}

// utcWall reads the sandbox's zoneless timestamp as the UTC time it is.
func utcWall(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.ParseInLocation("2006-01-02T15:04:05.999999", s, time.UTC)
	if err != nil {
		t.Fatalf("timestamp %q: %v", s, err)
	}
	return v
}

// figures are the dashboard's, by its stated definitions: collected is
// amount_paid on days in Jakarta; outstanding is what paying would cost
// today (amount, plus the penalty once past the due day); expired (by state
// or by today's date) counts at face value.
type figures struct {
	collectedToday, collectedMonth, collectedYear int64
	outstanding, notYetDue, overdue, expired      int64
	payments                                      int
}

func computeFigures(t *testing.T, recs []rawRecord, now time.Time, jakarta *time.Location) figures {
	day := func(tm time.Time) string { return tm.Format(time.DateOnly) }
	today := day(now.In(jakarta))
	monthStart, yearStart := today[:8]+"01", "2026-07-01"
	var f figures
	for _, r := range recs {
		if r.State == "paid" {
			paid := day(utcWall(t, r.PaidDate).In(jakarta))
			f.payments++
			if paid == today {
				f.collectedToday += r.AmountPaid
			}
			if paid >= monthStart && paid <= today {
				f.collectedMonth += r.AmountPaid
			}
			if paid >= yearStart && paid <= today {
				f.collectedYear += r.AmountPaid
			}
			continue
		}
		// Component days: the date each timestamp spells (UTC midnight, the service on UTC).
		due, expiry := day(utcWall(t, r.Due)), day(utcWall(t, r.Expiry))
		switch {
		case r.State == "expired" || today > expiry:
			f.expired += r.Amount
		case today > due:
			f.overdue += r.Amount + r.Penalty
		default:
			f.notYetDue += r.Amount
		}
	}
	f.outstanding = f.notYetDue + f.overdue
	return f
}

func TestLooseServiceGivesCompleteFigures(t *testing.T) {
	t.Parallel()
	jakarta, err := time.LoadLocation("Asia/Jakarta")
	if err != nil {
		t.Fatal(err)
	}
	p := portaltest.Start(t, portaltest.Options{Now: e2eNow, Demo: true, Sandbox: func(o *sandbox.Options) {
		o.Location, o.MaxLimit, o.CapSilently, o.Zoneless = time.UTC, 300, true, true
	}})
	if p.Config.Location.String() != "Asia/Jakarta" {
		t.Fatalf("the portal runs on %v", p.Config.Location)
	}
	raw := httptest.NewServer(p.Sandbox)
	defer raw.Close()
	svc := rawService{t: t, url: raw.URL, sb: p.Sandbox}

	// Money arrives now, at 01:30 in Jakarta (still the 14th for the service):
	// three parents pay at a bank.
	before := svc.all()
	var paidNow int
	for _, r := range before {
		if paidNow == 3 {
			break
		}
		if r.State == "provisioned" && r.Active == "" && utcWall(t, r.Due).After(e2eNow) {
			svc.do("POST", "/_sandbox/bank-payment", map[string]any{"bill_key": r.NIS, "bill_component_list": []string{r.ID}, "merchant_name": "BCA"})
			paidNow++
		}
	}
	p.AwaitCallbacks(t) // the service has told the portal of each payment
	recs := svc.all()
	want := computeFigures(t, recs, e2eNow, jakarta)
	if len(recs) < 5000 || want.collectedToday <= 0 || want.overdue <= 0 || want.notYetDue <= 0 || want.expired <= 0 || paidNow != 3 {
		t.Fatalf("the demo school is too thin to prove anything: %d components, %+v", len(recs), want)
	}

	c := p.SignedIn(t, "principal")
	res := c.Get("/")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET / = %d\n%.2000s", res.StatusCode, res.Body)
	}
	cards := map[string]int64{
		"card-collected-today": want.collectedToday,
		"card-collected-month": want.collectedMonth,
		"card-collected-year":  want.collectedYear,
		"card-outstanding":     want.outstanding,
		"card-not-due":         want.notYetDue,
		"card-overdue":         want.overdue,
		"card-expired":         want.expired,
	}
	for id, amount := range cards {
		if got := rText(res, `[data-testid="`+id+`"] [data-testid="value"]`); got != i18n.Rupiah(amount) {
			t.Errorf("%s shows %q, want %s", id, got, i18n.Rupiah(amount))
		}
	}

	// The payments report reads day by day (the month is enough to cover the
	// evening payments that are the next day in Jakarta); the accounts report
	// reads the whole year in one range.
	reportsWant := []struct {
		path, testid string
		amount       int64
	}{
		{"/reports/payments?from=2027-03-15&to=2027-03-15", "payments-total", want.collectedToday},
		{"/reports/payments?from=2027-03-01&to=2027-03-15", "payments-total", want.collectedMonth},
		{"/reports/accounts?from=2026-07-01&to=2027-03-15", "accounts-total", want.collectedYear},
		{"/reports/outstanding?all=1", "outstanding-total", want.outstanding},
		{"/reports/outstanding", "outstanding-total", want.overdue},
		{"/reports/outstanding?due_to=2027-03-14", "outstanding-total", want.overdue},
		{"/reports/outstanding?all=1&due_from=2027-03-15", "outstanding-total", want.notYetDue},
	}
	for _, w := range reportsWant {
		res := c.Get(w.path)
		if got := rText(res, `[data-testid="`+w.testid+`"]`); res.StatusCode != http.StatusOK || got != i18n.Rupiah(w.amount) {
			t.Errorf("%s: %d %s %q, want %s", w.path, res.StatusCode, w.testid, got, i18n.Rupiah(w.amount))
		}
	}
	// Today's payments report lists each of the three bank payments once.
	today := c.Get("/reports/payments?" + url.Values{"from": {"2027-03-15"}, "to": {"2027-03-15"}}.Encode())
	if n := today.Doc.Find(`[data-testid="payments-table"] tbody tr`).Length(); n != 3 {
		t.Errorf("today's payments: %d rows, want 3", n)
	}
}
