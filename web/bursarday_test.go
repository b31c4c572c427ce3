package web_test

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/sekolah/portal/internal/audit"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/counter"
	"github.com/sekolah/portal/internal/store"
)

// The counter is in the navigation of those who take payments, second after the
// dashboard; a principal, who reads only, has no counter.
func TestCounterInNavigation(t *testing.T) {
	t.Parallel()
	p, _ := startCounter(t)
	for role, want := range map[string]bool{"finance": true, "admin": true, "principal": false} {
		res := p.SignedIn(t, role).Get("/")
		links := res.Doc.Find(`.sidenav a`)
		got := res.Doc.Find(`.sidenav [data-testid="nav-counter"]`)
		if (got.Length() == 1) != want {
			t.Errorf("%s: counter in the navigation %v, want %v", role, got.Length() == 1, want)
			continue
		}
		if want && (got.AttrOr("href", "") != "/payments/new" || links.Eq(1).AttrOr("data-testid", "") != "nav-counter") {
			t.Errorf("%s: counter link %q at %q", role, got.AttrOr("href", ""), links.Eq(1).AttrOr("data-testid", ""))
		}
	}
	// On the counter's own pages it is the current section.
	res := p.SignedIn(t, "finance").Get("/payments/new?nis=2024001")
	if res.Doc.Find(`[data-testid="nav-counter"][aria-current="page"]`).Length() != 1 {
		t.Errorf("the counter is not the current section on its page")
	}
}

// The dashboard's search finds a student; a single match opens them, several list.
func TestDashboardStudentSearch(t *testing.T) {
	t.Parallel()
	p, _ := startCounter(t)
	c := p.SignedIn(t, "principal")
	form := c.Get("/").Doc.Find(`form[data-testid="dashboard-search"]`)
	if form.AttrOr("action", "") != "/students" || form.AttrOr("method", "") != "get" || form.Find(`input[name="open"][value="1"]`).Length() != 1 {
		t.Fatalf("the dashboard has no student search: %q", form.AttrOr("action", ""))
	}
	res := c.Get("/students?open=1&q=aminah")
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/students/2024001" {
		t.Fatalf("a single match: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	// Several matches (both have an "i" and "a"): the list, nothing opened.
	res = c.Get("/students?open=1&q=2024")
	if res.Request.URL.Path != "/students" || res.Doc.Find(`[data-testid="students-table"] tbody tr`).Length() != 3 {
		t.Fatalf("several matches: at %s, %d rows", res.Request.URL, res.Doc.Find(`[data-testid="students-table"] tbody tr`).Length())
	}
	// Without open=1 (the roster's own search), one match stays a list.
	if res := c.Get("/students?q=aminah"); res.Request.URL.Path != "/students" {
		t.Errorf("the roster's search opened %s", res.Request.URL)
	}
}

// Back after paying asks for no resubmission: the confirmation is a GET, and the
// payment's POST answers with a redirect (post/redirect/get).
func TestCounterConfirmationIsAGet(t *testing.T) {
	t.Parallel()
	p, s := startCounter(t)
	c := p.SignedIn(t, "finance")
	form := c.Get("/payments/new?nis=2024001").Doc.Find(`form[data-testid="payment-form"]`)
	if form.AttrOr("method", "") != "get" || form.AttrOr("action", "") != "/payments/confirm" || form.Find(`input[name="csrf_token"]`).Length() != 0 {
		t.Fatalf("the counter form: %q %q", form.AttrOr("method", ""), form.AttrOr("action", ""))
	}
	q := url.Values{"nis": {"2024001"}, "ref": {"KW-1"}, "component": {s.id("SPP Oktober")}}
	res := c.Get("/payments/confirm?" + q.Encode())
	if res.StatusCode != http.StatusOK || billsText(res.Doc.Find(`[data-testid="confirm-total"]`)) != "Rp 275.000" {
		t.Fatalf("confirmation by GET: %d %q", res.StatusCode, billsText(res.Doc.Find(`[data-testid="confirm-total"]`)))
	}
	q.Set("total", "275000")
	res = c.Post("/payments", q)
	if loc := res.Header.Get("Location"); res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/payments/receipt") {
		t.Fatalf("paying: %d to %q", res.StatusCode, loc)
	}
	res = c.Get(res.Header.Get("Location"))
	// The message names the student, not only the NIS.
	if got := billsText(res.Doc.Find(`[data-testid="flash"]`)); !strings.Contains(got, "Siti Aminah (NIS 2024001)") {
		t.Errorf("flash %q", got)
	}
	// Back to the confirmation: asked again, it says the item is paid now.
	res = c.Get("/payments/confirm?" + url.Values{"nis": {"2024001"}, "ref": {"KW-1"}, "component": {s.id("SPP Oktober")}}.Encode())
	if res.StatusCode != http.StatusUnprocessableEntity && res.StatusCode != http.StatusConflict {
		t.Errorf("the confirmation after paying: %d", res.StatusCode)
	}
}

// "Perpanjang lalu terima" at the counter: the expired item offers it; the page confirms
// the new expiry and what paying costs; one POST extends and pays, audited once.
func TestCounterExtendThenPay(t *testing.T) {
	t.Parallel()
	p, s := startCounter(t)
	c := p.SignedIn(t, "finance")
	id := s.id("Seragam")
	line := c.Get("/payments/new?nis=2024002").Doc.Find(`[data-testid="payment-line"][data-component="` + id + `"]`)
	link := line.Find(`a[data-testid="extend-pay"]`)
	if link.Length() != 1 || !strings.Contains(billsText(line), "perpanjang dulu") {
		t.Fatalf("the expired item offers no extension: %q", billsText(line))
	}
	res := c.Get(link.AttrOr("href", ""))
	if res.StatusCode != http.StatusOK {
		t.Fatalf("extension page: %d %s", res.StatusCode, billsText(res.Doc.Find("main")))
	}
	f := res.Doc.Find(`form[data-testid="extend-form"]`)
	until, ref := f.Find(`input[name="until"]`).AttrOr("value", ""), f.Find(`input[name="ref"]`).AttrOr("value", "")
	if until != "2026-12-22" || ref != "KW/2026/11/0001" || billsText(res.Doc.Find(`[data-testid="extend-total"]`)) != "Rp 300.000" {
		t.Fatalf("suggested until %q, ref %q, total %q", until, ref, billsText(res.Doc.Find(`[data-testid="extend-total"]`)))
	}
	if got := billsText(res.Doc.Find(`[data-testid="date-echo-f-until"]`)); got != "Dibaca: 22 Des 2026" {
		t.Errorf("the date as read: %q", got)
	}
	// A day in the past: said on its field, typed values kept.
	form := url.Values{"nis": {"2024002"}, "component": {id}, "until": {"2026-11-01"}, "ref": {ref}, "total": {"300000"}}
	res = c.Post("/payments/extend", form)
	if res.StatusCode != http.StatusUnprocessableEntity || res.Doc.Find(`[data-testid="error-until"]`).Length() != 1 ||
		res.Doc.Find(`input[name="until"]`).AttrOr("value", "") != "2026-11-01" {
		t.Fatalf("a past day: %d", res.StatusCode)
	}
	form.Set("until", "2026-12-31")
	res = c.Post("/payments/extend", form)
	if loc := res.Header.Get("Location"); res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/payments/receipt") {
		t.Fatalf("extend and pay: %d to %q: %s", res.StatusCode, loc, billsText(res.Doc.Find("main")))
	}
	res = c.Get(res.Header.Get("Location"))
	if got := billsText(res.Doc.Find(`[data-testid="flash"]`)); !strings.Contains(got, "Seragam diperpanjang sampai 31 Des 2026") || !strings.Contains(got, "Budi Santoso") {
		t.Errorf("flash %q", got)
	}
	got := billByID(t, p, "2024002", id)
	if got.State != billing.StatePaid || got.AmountPaid != 300_000 {
		t.Fatalf("at the service: %+v", got)
	}
	es, _, _ := p.DB.ListAudit(t.Context(), store.AuditFilter{Action: counter.ActionExtendPay, Limit: 5})
	if len(es) != 1 || es[0].Outcome != string(audit.OK) || es[0].Actor != "finance" {
		t.Fatalf("audit %+v", es)
	}
	// A principal cannot.
	if res := p.SignedIn(t, "principal").Post("/payments/extend", form); res.StatusCode != http.StatusForbidden {
		t.Errorf("principal: %d", res.StatusCode)
	}
}

// A date filter says the day as the portal read it, in the page's language.
func TestDateFieldsSayTheDayRead(t *testing.T) {
	t.Parallel()
	p, _ := startCounter(t)
	c := p.SignedIn(t, "finance")
	res := c.Get("/bills?due_from=2026-12-15")
	echo := res.Doc.Find(`[data-testid="date-echo-f-due_from"]`)
	if got := billsText(echo); got != "Dibaca: 15 Des 2026" {
		t.Errorf("due_from read as %q", got)
	}
	if echo.AttrOr("data-months", "") == "" || !strings.Contains(echo.AttrOr("data-phrase", ""), "{d}") {
		t.Errorf("the script cannot keep it current: %q %q", echo.AttrOr("data-months", ""), echo.AttrOr("data-phrase", ""))
	}
}

// Pages travel gzipped to a browser that accepts it, and say they vary with it; the same
// page without gzip is the same page. The bills list at 200 rows is quoted before/after.
func TestPagesAreCompressed(t *testing.T) {
	t.Parallel()
	p, _ := reportsDemoPortal(t)
	c := p.SignedIn(t, "finance")
	for _, path := range []string{"/bills", "/bills?limit=200", "/", "/students"} {
		plain := c.Get(path, "Accept-Encoding", "identity")
		zipped := c.Get(path, "Accept-Encoding", "gzip, deflate, br")
		if plain.StatusCode != http.StatusOK || zipped.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d / %d", path, plain.StatusCode, zipped.StatusCode)
		}
		if plain.Header.Get("Content-Encoding") != "" || zipped.Header.Get("Content-Encoding") != "gzip" ||
			!strings.Contains(strings.Join(zipped.Header.Values("Vary"), ","), "Accept-Encoding") {
			t.Fatalf("%s: encodings %q / %q, Vary %q", path, plain.Header.Get("Content-Encoding"), zipped.Header.Get("Content-Encoding"), zipped.Header.Values("Vary"))
		}
		zr, err := gzip.NewReader(strings.NewReader(zipped.Body))
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		// Each page carries its own CSRF token and live token: compare what is left.
		if !strings.Contains(string(body), `data-testid="nav-bills"`) || len(body) < len(plain.Body)*9/10 {
			t.Errorf("%s: %d bytes unzipped, %d plain", path, len(body), len(plain.Body))
		}
		t.Logf("%s: %d bytes as HTML, %d gzipped", path, len(plain.Body), len(zipped.Body))
	}
	// A client that refuses gzip gets none.
	if res := c.Get("/bills", "Accept-Encoding", "gzip;q=0, identity"); res.Header.Get("Content-Encoding") != "" {
		t.Errorf("gzip;q=0 answered with %q", res.Header.Get("Content-Encoding"))
	}
	// The HTMX partial too, and a short answer stays plain.
	if res := c.Get("/bills?limit=200", "HX-Request", "true", "Accept-Encoding", "gzip"); res.Header.Get("Content-Encoding") != "gzip" {
		t.Errorf("partial not compressed")
	}
	if res := c.Get("/healthz", "Accept-Encoding", "gzip"); res.Header.Get("Content-Encoding") != "" {
		t.Errorf("/healthz compressed")
	}
}
