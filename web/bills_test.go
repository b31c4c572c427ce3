package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/changes"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/sandbox"
	"github.com/sekolah/portal/internal/store"
)

// billsNow is 10:00 WIB on Sunday 22 Nov 2026.
var billsNow = time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)

func billDay(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

// billsSchool is the test data: three students and their components, by name.
type billsSchool struct {
	byName map[string]billing.Bill
}

func (s billsSchool) id(name string) string { return s.byName[name].ComponentID }

// seedBills creates, through the real sandbox:
//
//	2024001 Siti Aminah:  "SPP Oktober"  SPP 250.000 + 25.000, due 10 Nov (late: 12 days), notes Kelas 7A
//	                      "SPP Desember" SPP 260.000 + 26.000, due 24 Nov (reminder goes out today)
//	2024002 Budi Santoso: "SPP November" SPP 200.000 + 20.000, due 27 Nov (reminder on the 25th)
//	                      "Seragam"      SPP 300.000, due 1 Oct, expired 31 Oct
//	2024003 Dewi Lestari: "Buku"         SPP 150.000, due 30 Nov, paid at the bank on 20 Nov (BANK-001)
//	                      "Study tour"   BCA 500.000 + 50.000, due 15 Dec
func seedBills(t *testing.T, p *portaltest.Portal) billsSchool {
	t.Helper()
	ctx := t.Context()
	_, err := p.Billing.CreateStudents(ctx, []billing.Student{
		{NIS: "2024001", Name: "Siti Aminah", Phone: "081200000001"},
		{NIS: "2024002", Name: "Budi Santoso", Phone: "081200000002"},
		{NIS: "2024003", Name: "Dewi Lestari", Email: "dewi@example.sch.id"},
	})
	if err != nil {
		t.Fatalf("create students: %v", err)
	}
	in := []billing.ComponentInput{
		{NIS: "2024001", AccountCode: "SPP", Name: "SPP Oktober", Due: billDay("2026-11-10"), Expiry: billDay("2026-12-31"), Amount: 250_000, Penalty: 25_000, Notes: "Kelas 7A"},
		{NIS: "2024001", AccountCode: "SPP", Name: "SPP Desember", Due: billDay("2026-11-24"), Expiry: billDay("2027-01-31"), Amount: 260_000, Penalty: 26_000, Notes: "Kelas 7A"},
		{NIS: "2024002", AccountCode: "SPP", Name: "SPP November", Due: billDay("2026-11-27"), Expiry: billDay("2026-12-31"), Amount: 200_000, Penalty: 20_000},
		{NIS: "2024002", AccountCode: "SPP", Name: "Seragam", Due: billDay("2026-10-01"), Expiry: billDay("2026-10-31"), Amount: 300_000},
		{NIS: "2024003", AccountCode: "SPP", Name: "Buku", Due: billDay("2026-11-30"), Expiry: billDay("2026-12-31"), Amount: 150_000},
		{NIS: "2024003", AccountCode: "BCA", Name: "Study tour", Due: billDay("2026-12-15"), Expiry: billDay("2027-01-31"), Amount: 500_000, Penalty: 50_000},
	}
	created, err := p.Billing.CreateComponents(ctx, in)
	if err != nil {
		t.Fatalf("create components: %v", err)
	}
	s := billsSchool{byName: map[string]billing.Bill{}}
	for _, b := range created {
		s.byName[b.Name] = b
	}
	// The bank payment happened two days ago.
	p.Sandbox.SetClock(time.Date(2026, 11, 20, 2, 0, 0, 0, time.UTC))
	if _, err := p.Billing.Pay(ctx, billing.Payment{NIS: "2024003", RefNumber: "BANK-001", ComponentIDs: []string{s.id("Buku")}}); err != nil {
		t.Fatalf("pay: %v", err)
	}
	p.Sandbox.SetClock(billsNow)
	// Made at the service behind the portal's back: the next sync brings it.
	p.SyncLedger(t)
	return s
}

func startBills(t *testing.T) (*portaltest.Portal, billsSchool) {
	t.Helper()
	p := portaltest.Start(t, portaltest.Options{Now: billsNow})
	return p, seedBills(t, p)
}

// rowNames lists the component names of the bills table, in order.
func billRowNames(doc *goquery.Document) []string {
	var out []string
	doc.Find(`[data-testid="bill-row"]`).Each(func(_ int, s *goquery.Selection) {
		out = append(out, strings.TrimSpace(s.Find("td").Eq(1).Find("div").First().Text()))
	})
	return out
}

func billRow(doc *goquery.Document, id string) *goquery.Selection {
	return doc.Find(`[data-testid="bill-row"][data-component="` + id + `"]`)
}

// billRowIDs lists the component ids of the bills table, in order.
func billRowIDs(doc *goquery.Document) []string {
	var out []string
	doc.Find(`[data-testid="bill-row"]`).Each(func(_ int, s *goquery.Selection) { out = append(out, s.AttrOr("data-component", "")) })
	return out
}

func billsText(s *goquery.Selection) string { return strings.Join(strings.Fields(s.Text()), " ") }

func TestBillsBrowserPage(t *testing.T) {
	t.Parallel()
	p, s := startBills(t)
	c := p.SignedIn(t, "finance")

	res := c.Get("/bills")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("/bills: %d\n%s", res.StatusCode, res.Body)
	}
	if !strings.Contains(strings.Join(res.Header.Values("Vary"), ","), "HX-Request") {
		t.Errorf("Vary = %q", res.Header.Get("Vary"))
	}
	doc := res.Doc
	if doc.Find("html").Length() != 1 || doc.Find(`[data-testid="nav-bills"][aria-current="page"]`).Length() != 1 {
		t.Fatal("/bills is not a full page with Tagihan as the current section")
	}
	// The outstanding tab is the default; expired and paid components are not on it.
	if cur := doc.Find(`[data-testid="bills-tabs"] a[aria-current="page"]`); cur.Length() != 1 || cur.AttrOr("data-testid", "") != "tab-provisioned" {
		t.Fatalf("current tab: %d %q", cur.Length(), cur.AttrOr("data-testid", ""))
	}
	names := billRowNames(doc)
	slices.Sort(names)
	if want := []string{"SPP Desember", "SPP November", "SPP Oktober", "Study tour"}; !slices.Equal(names, want) {
		t.Fatalf("outstanding rows %v, want %v", names, want)
	}
	// The late one shows the penalty that applies today and what paying today costs.
	late := billRow(doc, s.id("SPP Oktober"))
	if got := billsText(late.Find(`[data-testid="penalty-today"]`)); got != "Rp 25.000" {
		t.Errorf("penalty today = %q", got)
	}
	if got := billsText(late.Find(`[data-testid="due-today"] strong`)); got != "Rp 275.000" {
		t.Errorf("due today = %q", got)
	}
	if late.AttrOr("data-status", "") != "overdue" || billsText(late.Find(`[data-testid="state-badge"]`)) != "Terlambat" {
		t.Errorf("late row status %q badge %q", late.AttrOr("data-status", ""), billsText(late.Find(`[data-testid="state-badge"]`)))
	}
	if !strings.Contains(billsText(late), "terlambat 12 hari") {
		t.Errorf("late row does not say how late: %q", billsText(late))
	}
	if href := late.Find(`[data-testid="student-link"]`).AttrOr("href", ""); href != "/students/2024001" {
		t.Errorf("NIS link = %q", href)
	}
	if href := late.Find(`[data-testid="pay-link"]`).AttrOr("href", ""); href != "/payments/new?nis=2024001" {
		t.Errorf("pay link = %q", href)
	}
	onTime := billRow(doc, s.id("SPP Desember"))
	if got := billsText(onTime.Find(`[data-testid="due-today"] strong`)); got != "Rp 260.000" || onTime.AttrOr("data-status", "") != "provisioned" {
		t.Errorf("on-time row: due %q status %q", got, onTime.AttrOr("data-status", ""))
	}
	// Totals of the whole result, and the page says they are.
	if got := billsText(doc.Find(`[data-testid="total-due"]`)); got != "Rp 1.235.000" {
		t.Errorf("total due today = %q", got)
	}
	if got := billsText(doc.Find(`[data-testid="total-penalty"]`)); got != "Rp 25.000" {
		t.Errorf("total penalty = %q", got)
	}
	if note := billsText(doc.Find(`[data-testid="page-note"]`)); !strings.Contains(note, "Baris 1–4 dari 4") || !strings.Contains(note, "semua hasil") {
		t.Errorf("page note = %q", note)
	}
	if got := billsText(doc.Find(`[data-testid="bills-summary"]`)); got != "4 tagihan · nominal Rp 1.210.000 · yang belum dibayar, bila dilunasi hari ini Rp 1.235.000" {
		t.Errorf("summary = %q", got)
	}
	// Every control works without JavaScript: a plain GET form and real links.
	form := doc.Find(`form[data-testid="bills-filters"]`)
	if form.AttrOr("method", "") != "get" || form.AttrOr("action", "") != "/bills" || form.AttrOr("hx-get", "") != "/bills" || form.AttrOr("hx-push-url", "") != "true" {
		t.Errorf("filter form attributes: %v", form.Nodes[0].Attr)
	}
	doc.Find(`[hx-get]`).Each(func(_ int, el *goquery.Selection) {
		if el.Is("a") && el.AttrOr("href", "") != el.AttrOr("hx-get", "") {
			t.Errorf("link hx-get %q but href %q", el.AttrOr("hx-get", ""), el.AttrOr("href", ""))
		}
	})

	// HTMX gets only the table (with the tabs and the form's state out of band) and the
	// short URL to push.
	res = c.Get("/bills?state=all&account=&due_from=&nis=&sort=due", "HX-Request", "true")
	if res.StatusCode != http.StatusOK || res.Doc.Find("html body nav.sidenav").Length() != 0 || res.Doc.Find(`#bills-results`).Length() != 1 {
		t.Fatalf("HTMX /bills: %d, full page? %v", res.StatusCode, strings.Contains(res.Body, "sidenav"))
	}
	if strings.Contains(res.Body, "<html") || strings.Contains(res.Body, `data-testid="bills-filters"`) {
		t.Fatal("the partial carries the page shell or the filter form")
	}
	if n := res.Doc.Find(`[hx-swap-oob="true"]`).Length(); n != 2 {
		t.Errorf("%d out-of-band parts, want the tabs and the form state", n)
	}
	if got := res.Header.Get("HX-Push-Url"); got != "/bills?sort=due&state=all" {
		t.Errorf("HX-Push-Url = %q", got)
	}
	if len(billRowNames(res.Doc)) != 6 {
		t.Errorf("all tab: %v", billRowNames(res.Doc))
	}
	// The back button: htmx restores an uncached page with HX-Request set; it needs the page.
	res = c.Get("/bills?state=all", "HX-Request", "true", "HX-History-Restore-Request", "true")
	if !strings.Contains(res.Body, "<html") || res.Doc.Find(`form[data-testid="bills-filters"]`).Length() != 1 {
		t.Fatal("a history restore got the partial instead of the page")
	}
}

func TestBillsFiltersInURL(t *testing.T) {
	t.Parallel()
	p, s := startBills(t)
	c := p.SignedIn(t, "principal")
	tests := []struct {
		query string
		want  []string // names, in the order shown when sorted
	}{
		{"state=paid", []string{"Buku"}},
		{"state=expired", []string{"Seragam"}},
		{"state=all&account=BCA", []string{"Study tour"}},
		{"state=all&due_from=2026-11-20&due_to=2026-11-30&sort=due", []string{"SPP Desember", "SPP November", "Buku"}},
		{"state=all&paid_from=2026-11-20&paid_to=2026-11-20", []string{"Buku"}},
		{"state=all&paid_from=2026-11-21", nil},
		{"state=all&nis=2024002&sort=-due", []string{"SPP November", "Seragam"}},
		{"nis=2024002", []string{"SPP November"}},
		{"state=all&notes=Kelas+7A&sort=due", []string{"SPP Oktober", "SPP Desember"}},
		// Notes: contains, any letter case.
		{"state=all&notes=las+7a&sort=due", []string{"SPP Oktober", "SPP Desember"}},
		{"state=all&ref=BANK-001", []string{"Buku"}},
		{"state=all&sort=-amount", []string{"Study tour", "Seragam", "SPP Desember", "SPP Oktober", "SPP November", "Buku"}},
		{"state=all&sort=-nis&account=SPP&due_from=2026-11-20", []string{"Buku", "SPP November", "SPP Desember"}},
		{"state=all&sort=nis&due_to=2026-11-10", []string{"SPP Oktober", "Seragam"}},
		{"state=all&sort=-paid&limit=25", []string{"Buku"}},
	}
	for _, tt := range tests {
		res := c.Get("/bills?" + tt.query)
		if res.StatusCode != http.StatusOK {
			t.Errorf("%s: status %d", tt.query, res.StatusCode)
			continue
		}
		got := billRowNames(res.Doc)
		if strings.Contains(tt.query, "sort=-paid") {
			got = got[:min(1, len(got))]
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: rows %v, want %v", tt.query, got, tt.want)
		}
		// The form shows the filters, and the tabs keep them.
		q, _ := url.ParseQuery(tt.query)
		for _, k := range []string{"account", "due_from", "due_to", "paid_from", "paid_to", "nis", "notes", "ref"} {
			sel := `[data-testid="bills-filters"] [name="` + k + `"]`
			val := res.Doc.Find(sel).AttrOr("value", "")
			if k == "account" {
				val = res.Doc.Find(sel+` option[selected]`).AttrOr("value", "")
			}
			if val != q.Get(k) {
				t.Errorf("%s: form %s = %q", tt.query, k, val)
			}
		}
		tab := res.Doc.Find(`[data-testid="tab-expired"]`).AttrOr("href", "")
		tq, _ := url.Parse(tab)
		for _, k := range []string{"account", "due_from", "nis", "notes", "ref", "sort"} {
			if tq.Query().Get(k) != q.Get(k) {
				t.Errorf("%s: expired tab link %q loses %s", tt.query, tab, k)
			}
		}
	}
	// Days typed by hand, day first, filter the same and come back as a date input sends them.
	res := c.Get("/bills?state=all&due_from=20/11/2026&due_to=30+Nov+2026&sort=due")
	if got := billRowNames(res.Doc); res.StatusCode != http.StatusOK || !slices.Equal(got, []string{"SPP Desember", "SPP November", "Buku"}) {
		t.Errorf("typed days: status %d, rows %v", res.StatusCode, got)
	}
	if v := res.Doc.Find(`[data-testid="bills-filters"] [name="due_from"]`).AttrOr("value", ""); v != "2026-11-20" {
		t.Errorf("typed due_from shows as %q", v)
	}
	if tab, _ := url.Parse(res.Doc.Find(`[data-testid="tab-expired"]`).AttrOr("href", "")); tab.Query().Get("due_to") != "2026-11-30" {
		t.Errorf("expired tab link %q", tab)
	}
	// An unknown NIS is a plain message, not an error page.
	res = c.Get("/bills?state=all&nis=9999999")
	if res.StatusCode != http.StatusOK || !strings.Contains(billsText(res.Doc.Find(`[data-testid="bills-notice"]`)), "Tidak ada siswa dengan NIS 9999999") {
		t.Errorf("unknown NIS: %d %q", res.StatusCode, billsText(res.Doc.Find(`[data-testid="bills-notice"]`)))
	}
	// A paid row links to its receipt.
	res = c.Get("/bills?state=paid")
	if href := billRow(res.Doc, s.id("Buku")).Find(`[data-testid="receipt-link"]`).AttrOr("href", ""); href != "/payments/receipt?nis=2024003&ref=BANK-001" {
		t.Errorf("receipt link = %q", href)
	}
}

func TestBillsInvalidFilters(t *testing.T) {
	t.Parallel()
	p, _ := startBills(t)
	c := p.SignedIn(t, "finance")
	// Every upstream call would fail now: a page without an upstream error proves none was made.
	p.Sandbox.SetFaults(sandbox.Faults{ErrorRate: 1, Status: 503})
	tests := []struct {
		query, field, message string
	}{
		{"due_from=2026-02-30", "due_from", "Tanggal tidak valid"},
		{"paid_to=31/11/2026", "paid_to", "Tanggal tidak valid"},
		{"due_from=2026-12-01&due_to=2026-11-01", "due_to", "tidak boleh sebelum"},
		{"paid_from=2026-12-01&paid_to=2026-11-01", "paid_to", "tidak boleh sebelum"},
		{"account=KOPERASI", "account", "Pilihan tidak valid"},
		{"nis=20%2F24", "nis", "NIS hanya boleh berisi"},
		{"state=unpaid", "", "Pilihan tidak valid"},
	}
	for _, tt := range tests {
		for _, hx := range []bool{false, true} {
			var res *portaltest.Response
			if hx {
				res = c.Get("/bills?"+tt.query, "HX-Request", "true")
			} else {
				res = c.Get("/bills?" + tt.query)
			}
			if res.StatusCode != http.StatusUnprocessableEntity {
				t.Errorf("%s (hx %v): status %d", tt.query, hx, res.StatusCode)
			}
			msg := billsText(res.Doc.Find(`[data-testid="filter-errors"]`))
			if !strings.Contains(msg, tt.message) {
				t.Errorf("%s (hx %v): message %q", tt.query, hx, msg)
			}
			if strings.Contains(res.Body, "Layanan pembayaran") || res.Doc.Find(`[data-testid="bill-row"]`).Length() != 0 {
				t.Errorf("%s (hx %v): the service was asked", tt.query, hx)
			}
			if hx || tt.field == "" {
				continue
			}
			q, _ := url.ParseQuery(tt.query)
			sel := `[data-testid="bills-filters"] [name="` + tt.field + `"]`
			if tt.field == "account" {
				if res.Doc.Find(sel).AttrOr("aria-invalid", "") != "true" {
					t.Errorf("%s: account not marked", tt.query)
				}
				continue
			}
			if v := res.Doc.Find(sel).AttrOr("value", ""); v != q.Get(tt.field) {
				t.Errorf("%s: the form lost %s: %q", tt.query, tt.field, v)
			}
			if res.Doc.Find(`[data-testid="error-`+tt.field+`"]`).Length() != 1 {
				t.Errorf("%s: no message beside %s", tt.query, tt.field)
			}
		}
	}
	// With valid filters the list answers from the ledger, the service down or not.
	res := c.Get("/bills")
	if res.StatusCode != http.StatusOK || len(billRowNames(res.Doc)) != 4 {
		t.Errorf("service down: %d %v", res.StatusCode, billRowNames(res.Doc))
	}
}

func TestBillsPaging(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: billsNow})
	ctx := t.Context()
	if _, err := p.Billing.CreateStudents(ctx, []billing.Student{{NIS: "77", Name: "Rina"}}); err != nil {
		t.Fatal(err)
	}
	var in []billing.ComponentInput
	for i := range 30 {
		in = append(in, billing.ComponentInput{NIS: "77", AccountCode: "SPP", Name: "Cicilan " + string(rune('A'+i)),
			Due: billDay("2026-12-01").AddDate(0, 0, i), Expiry: billDay("2027-06-30"), Amount: int64(1000 * (i + 1))})
	}
	if _, err := p.Billing.CreateComponents(ctx, in); err != nil {
		t.Fatal(err)
	}
	p.SyncLedger(t)
	c := p.SignedIn(t, "finance")
	res := c.Get("/bills?limit=25")
	if n := len(billRowNames(res.Doc)); n != 25 {
		t.Fatalf("first page: %d rows", n)
	}
	next := res.Doc.Find(`[data-testid="page-next"]`).AttrOr("href", "")
	if next != "/bills?limit=25&offset=25&state=provisioned" || res.Doc.Find(`[data-testid="page-prev"]`).Length() != 0 {
		t.Fatalf("first page links: next %q", next)
	}
	// The total is of all 30, which the page says; so does the pager.
	if got := billsText(res.Doc.Find(`[data-testid="bills-totals"] th`)); got != "Total semua 30 tagihan" {
		t.Errorf("totals label %q", got)
	}
	if got := billsText(res.Doc.Find(`[data-testid="total-amount"]`)); got != "Rp 465.000" { // 1.000 + … + 30.000
		t.Errorf("total amount %q", got)
	}
	if got := billsText(res.Doc.Find(`[data-testid="pagination"]`)); !strings.Contains(got, "1–25 dari 30") {
		t.Errorf("pager %q", got)
	}
	res = c.Get(next, "HX-Request", "true")
	if n := len(billRowNames(res.Doc)); n != 5 {
		t.Fatalf("second page: %d rows", n)
	}
	if res.Doc.Find(`[data-testid="page-next"]`).Length() != 0 || res.Doc.Find(`[data-testid="page-prev"]`).AttrOr("hx-get", "") != "/bills?limit=25&state=provisioned" {
		t.Fatal("second page links wrong")
	}
	if note := billsText(res.Doc.Find(`[data-testid="page-note"]`)); !strings.Contains(note, "26–30") {
		t.Errorf("page note %q", note)
	}
	// Exactly a full page: no next page (the count says so).
	res = c.Get("/bills?limit=25&offset=5")
	if n := len(billRowNames(res.Doc)); n != 25 || res.Doc.Find(`[data-testid="page-next"]`).Length() != 0 {
		t.Fatalf("offset 5: %d rows, next %d", n, res.Doc.Find(`[data-testid="page-next"]`).Length())
	}
	// The page size choice is kept in the form.
	if sel := res.Doc.Find(`#f-limit option[selected]`).AttrOr("value", ""); sel != "25" {
		t.Errorf("page size shown %q", sel)
	}
}

func TestBillsUpcoming(t *testing.T) {
	t.Parallel()
	p, s := startBills(t)
	c := p.SignedIn(t, "finance")
	res := c.Get("/bills/upcoming")
	if res.StatusCode != http.StatusOK || !strings.Contains(res.Body, "<html") {
		t.Fatalf("/bills/upcoming: %d", res.StatusCode)
	}
	if got := billsText(res.Doc.Find(`[data-testid="upcoming-range"]`)); !strings.Contains(got, "22 Nov 2026 sampai 28 Nov 2026") {
		t.Errorf("range %q", got)
	}
	var days []string
	res.Doc.Find(`[data-testid="due-day"]`).Each(func(_ int, d *goquery.Selection) {
		days = append(days, d.AttrOr("data-day", "")+" "+billsText(d.Find(`[data-testid="day-total"]`)))
	})
	// SPP Oktober is late and Buku is paid: neither is upcoming; Study tour is too far.
	if want := []string{"2026-11-24 Rp 260.000", "2026-11-27 Rp 200.000"}; !slices.Equal(days, want) {
		t.Fatalf("days %v, want %v", days, want)
	}
	dec := res.Doc.Find(`[data-testid="upcoming-row"][data-component="` + s.id("SPP Desember") + `"]`)
	if dec.Find(`[data-testid="reminder-sent"]`).Length() != 1 {
		t.Errorf("due on the 24th: reminder goes out today, shown as sent: %q", billsText(dec))
	}
	nov := res.Doc.Find(`[data-testid="upcoming-row"][data-component="` + s.id("SPP November") + `"]`)
	if got := billsText(nov.Find(`[data-testid="reminder-soon"]`)); !strings.Contains(got, "25 Nov 2026") || !strings.Contains(got, "dalam 3 hari") {
		t.Errorf("due on the 27th: reminder %q", got)
	}
	if got := billsText(res.Doc.Find(`[data-testid="upcoming-total"]`)); got != "Rp 460.000" {
		t.Errorf("total %q", got)
	}
	if a, b := billsText(res.Doc.Find(`[data-testid="upcoming-reminded"]`)), billsText(res.Doc.Find(`[data-testid="upcoming-reminded-soon"]`)); a != "1" || b != "1" {
		t.Errorf("reminded %s, soon %s", a, b)
	}
	res = c.Get("/bills/upcoming", "HX-Request", "true")
	if res.StatusCode != http.StatusOK || strings.Contains(res.Body, "<html") || res.Doc.Find(`#upcoming-results`).Length() != 1 {
		t.Fatalf("HTMX /bills/upcoming: %d", res.StatusCode)
	}
	// The service agrees on whose reminder is out.
	var sent []string
	for _, r := range p.Sandbox.Reminders() {
		sent = append(sent, r.BillComponentID)
	}
	if !slices.Contains(sent, s.id("SPP Desember")) || slices.Contains(sent, s.id("SPP November")) {
		t.Errorf("sandbox reminders %v", sent)
	}
}

func TestBillsRoles(t *testing.T) {
	t.Parallel()
	p, s := startBills(t)
	c := p.SignedIn(t, "principal")
	for _, path := range []string{"/bills", "/bills?state=all", "/bills/upcoming", "/payments/receipt?nis=2024003&ref=BANK-001"} {
		for _, hx := range []bool{false, true} {
			var res *portaltest.Response
			if hx {
				res = c.Get(path, "HX-Request", "true")
			} else {
				res = c.Get(path)
			}
			if res.StatusCode != http.StatusOK {
				t.Errorf("principal %s (hx %v): %d", path, hx, res.StatusCode)
			}
			if n := res.Doc.Find(`[data-testid="pay-link"], [data-testid="record-payment"], [data-testid="another-payment"], a[href^="/payments/new"]`).Length(); n != 0 {
				t.Errorf("principal sees %d pay controls on %s", n, path)
			}
		}
	}
	if res := c.Get("/"); res.Doc.Find(`[data-testid="nav-bills"]`).Length() != 1 {
		t.Error("principal has no Tagihan in the navigation")
	}
	form := url.Values{"nis": {"2024001"}, "ref": {"KW-1"}, "component": {s.id("SPP Oktober")}, "total": {"275000"}}
	for _, req := range []struct{ method, path string }{
		{"GET", "/payments/new"}, {"GET", "/payments/new?nis=2024001"}, {"POST", "/payments/confirm"}, {"POST", "/payments"},
	} {
		var res *portaltest.Response
		if req.method == "GET" {
			res = c.Get(req.path)
		} else {
			res = c.Post(req.path, form)
		}
		if res.StatusCode != http.StatusForbidden {
			t.Errorf("principal %s %s: %d, want 403", req.method, req.path, res.StatusCode)
		}
	}
	if got := billByID(t, p, "2024001", s.id("SPP Oktober")); got.State != billing.StateProvisioned {
		t.Fatalf("the principal's POST paid: %+v", got)
	}
	// Finance sees the pay controls.
	f := p.SignedIn(t, "finance")
	if res := f.Get("/bills"); res.Doc.Find(`[data-testid="pay-link"]`).Length() != 4 || res.Doc.Find(`[data-testid="record-payment"]`).Length() != 1 {
		t.Error("finance does not see the pay controls")
	}
}

func billByID(t *testing.T, p *portaltest.Portal, nis, id string) billing.Bill {
	t.Helper()
	for b, err := range p.Billing.AllForStudent(t.Context(), nis, billing.Query{}) {
		if err != nil {
			t.Fatalf("read %s: %v", nis, err)
		}
		if b.ComponentID == id {
			return b
		}
	}
	t.Fatalf("no component %s for %s", id, nis)
	return billing.Bill{}
}

func billsPayAudit(t *testing.T, p *portaltest.Portal) []store.AuditEntry {
	t.Helper()
	es, _, err := p.DB.ListAudit(t.Context(), store.AuditFilter{Action: changes.ActionPay, Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	return es
}

func TestCounterPaymentOfLateComponent(t *testing.T) {
	t.Parallel()
	p, s := startBills(t)
	c := p.SignedIn(t, "finance")

	// Without a NIS: the lookup form.
	res := c.Get("/payments/new")
	if res.StatusCode != http.StatusOK || res.Doc.Find(`[data-testid="payment-lookup"] input[name="q"]`).Length() != 1 || res.Doc.Find(`[data-testid="payment-form"]`).Length() != 0 {
		t.Fatalf("/payments/new: %d", res.StatusCode)
	}
	if res := c.Get("/payments/new?nis=2024001", "HX-Request", "true"); res.StatusCode != http.StatusOK || strings.Contains(res.Body, "<html") || res.Doc.Find(`#payment-panel [data-testid="payment-form"]`).Length() != 1 {
		t.Fatalf("HTMX lookup: %d", res.StatusCode)
	}
	res = c.Get("/payments/new?nis=2024001")
	lines := res.Doc.Find(`[data-testid="payment-line"]`)
	if lines.Length() != 2 || billsText(res.Doc.Find(`[data-testid="payable-total"]`)) != "Rp 535.000" {
		t.Fatalf("lines %d, total %q", lines.Length(), billsText(res.Doc.Find(`[data-testid="payable-total"]`)))
	}
	if !strings.Contains(billsText(res.Doc.Find(`[data-testid="payment-student"]`)), "Siti Aminah") {
		t.Errorf("student %q", billsText(res.Doc.Find(`[data-testid="payment-student"]`)))
	}

	// Confirm: exactly what will be paid, penalty included.
	late := s.id("SPP Oktober")
	res = c.Post("/payments/confirm", url.Values{"nis": {"2024001"}, "ref": {"  KW-2026/0042 "}, "component": {late}})
	if res.StatusCode != http.StatusOK {
		t.Fatalf("confirm: %d\n%s", res.StatusCode, billsText(res.Doc.Find("main")))
	}
	if got := billsText(res.Doc.Find(`[data-testid="confirm-total"]`)); got != "Rp 275.000" {
		t.Fatalf("confirm total %q", got)
	}
	if res.Doc.Find(`[data-testid="confirm-line"]`).Length() != 1 || billsText(res.Doc.Find(`[data-testid="confirm-ref"]`)) != "KW-2026/0042" {
		t.Fatal("confirm page lines or ref wrong")
	}
	pay := url.Values{}
	res.Doc.Find(`form[data-testid="pay-form"] input[type="hidden"]`).Each(func(_ int, in *goquery.Selection) {
		if n := in.AttrOr("name", ""); n != "csrf_token" {
			pay.Add(n, in.AttrOr("value", ""))
		}
	})
	if pay.Get("total") != "275000" || pay.Get("component") != late || pay.Get("ref") != "KW-2026/0042" {
		t.Fatalf("pay form %v", pay)
	}
	if res.Doc.Find(`form[data-testid="pay-form"]`).AttrOr("action", "") != "/payments" {
		t.Fatal("pay form action")
	}

	res = c.Post("/payments", pay)
	loc := res.Header.Get("Location")
	if res.StatusCode != http.StatusSeeOther || loc != "/payments/receipt?nis=2024001&ref=KW-2026%2F0042" {
		t.Fatalf("pay: %d %q\n%s", res.StatusCode, loc, billsText(res.Doc.Find("main")))
	}
	got := billByID(t, p, "2024001", late)
	if got.State != billing.StatePaid || got.AmountPaid != 275_000 || got.RefNumber != "KW-2026/0042" {
		t.Fatalf("at the service: %+v", got)
	}
	es := billsPayAudit(t, p)
	if len(es) != 1 || es[0].Outcome != "ok" || es[0].Actor != "finance" || es[0].Target != "2024001" || !strings.Contains(es[0].Detail, "Rp 275000") {
		t.Fatalf("audit %+v", es)
	}

	// The receipt, read back from the service.
	res = c.Get(loc)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("receipt: %d", res.StatusCode)
	}
	if !strings.Contains(billsText(res.Doc.Find(`[data-testid="flash"]`)), "Rp 275.000") {
		t.Errorf("flash %q", billsText(res.Doc.Find(`[data-testid="flash"]`)))
	}
	rc := res.Doc.Find(`.receipt[data-testid="receipt"]`)
	for sel, want := range map[string]string{
		`[data-testid="receipt-ref"]`:     "KW-2026/0042",
		`[data-testid="receipt-student"]`: "Siti Aminah",
		`[data-testid="receipt-nis"]`:     "2024001",
		`[data-testid="receipt-penalty"]`: "Rp 25.000",
		`[data-testid="receipt-total"]`:   "Total Rp 275.000",
		`[data-testid="receipt-cashier"]`: "Finance Staf",
		`[data-testid="receipt-paid-at"]`: "22 Nov 2026 10:00",
	} {
		if got := billsText(rc.Find(sel)); got != want {
			t.Errorf("receipt %s = %q, want %q", sel, got, want)
		}
	}
	if res.Doc.Find(`button[data-print]`).Length() != 1 {
		t.Error("no print button")
	}
	// Paid ones are no longer offered.
	res = c.Get("/payments/new?nis=2024001")
	if res.Doc.Find(`[data-testid="payment-line"][data-component="`+late+`"]`).Length() != 0 {
		t.Error("the paid component is still offered")
	}
}

func TestCounterPaymentTwiceFromStaleFormRefused(t *testing.T) {
	t.Parallel()
	p, s := startBills(t)
	c := p.SignedIn(t, "finance")
	id := s.id("SPP Desember")
	form := url.Values{"nis": {"2024001"}, "ref": {"KW-1"}, "component": {id}, "total": {"260000"}}
	if res := c.Post("/payments", form); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("first payment: %d", res.StatusCode)
	}
	// The same confirmation posted again (a second tab, the back button, a double click).
	for _, path := range []string{"/payments", "/payments/confirm"} {
		second := url.Values{"nis": {"2024001"}, "ref": {"KW-2"}, "component": {id}, "total": {"260000"}}
		res := c.Post(path, second)
		if res.StatusCode != http.StatusConflict {
			t.Fatalf("%s again: %d", path, res.StatusCode)
		}
		msg := billsText(res.Doc.Find(`[data-testid="payment-refused"]`))
		if !strings.Contains(msg, "tidak dicatat") || !strings.Contains(msg, "SPP Desember sudah lunas (no. referensi KW-1)") {
			t.Errorf("%s again: message %q", path, msg)
		}
		// The fresh list, without the paid one; the typed reference is kept.
		if res.Doc.Find(`[data-testid="payment-line"][data-component="`+id+`"]`).Length() != 0 || res.Doc.Find(`[data-testid="payment-line"]`).Length() != 1 {
			t.Errorf("%s again: the list is not fresh", path)
		}
		if v := res.Doc.Find(`#f-ref`).AttrOr("value", ""); v != "KW-2" {
			t.Errorf("%s again: ref %q", path, v)
		}
	}
	if es := billsPayAudit(t, p); len(es) != 1 {
		t.Fatalf("%d payments audited, want 1", len(es))
	}
	// Reusing a reference number of the same student is refused too.
	res := c.Post("/payments/confirm", url.Values{"nis": {"2024001"}, "ref": {"kw-1"}, "component": {s.id("SPP Oktober")}})
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(billsText(res.Doc.Find(`[data-testid="error-ref"]`)), "sudah dipakai") {
		t.Fatalf("reused ref: %d %q", res.StatusCode, billsText(res.Doc.Find(`[data-testid="error-ref"]`)))
	}
}

// TestCounterPaymentRace: two cashiers post the same component at the same moment. Both
// may pass the re-read; the service then pays it once and refuses the other, which the
// page words plainly. Exactly one payment, one receipt.
func TestCounterPaymentRace(t *testing.T) {
	t.Parallel()
	p, s := startBills(t)
	id := s.id("SPP Oktober")
	clients := []*portaltest.Client{p.SignedIn(t, "finance"), p.SignedIn(t, "admin")}
	type result struct {
		status int
		msg    string
	}
	results := make(chan result, len(clients))
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := c.Post("/payments", url.Values{"nis": {"2024001"}, "ref": {fmt.Sprintf("KW-R%d", i)}, "component": {id}, "total": {"275000"}})
			results <- result{res.StatusCode, billsText(res.Doc.Find(`[data-testid="payment-refused"]`))}
		}()
	}
	wg.Wait()
	close(results)
	var ok, refused int
	for r := range results {
		switch {
		case r.status == http.StatusSeeOther:
			ok++
		case r.status == http.StatusConflict && strings.Contains(r.msg, "SPP Oktober") && strings.Contains(r.msg, "lunas"):
			refused++
		default:
			t.Errorf("unexpected answer %d %q", r.status, r.msg)
		}
	}
	if ok != 1 || refused != 1 {
		t.Fatalf("%d paid, %d refused", ok, refused)
	}
	var oks int
	for _, e := range billsPayAudit(t, p) {
		if e.Outcome == changes.OutcomeOK {
			oks++
		}
	}
	if got := billByID(t, p, "2024001", id); got.State != billing.StatePaid || got.AmountPaid != 275_000 || oks != 1 {
		t.Fatalf("at the service %+v, %d successful payments audited", got, oks)
	}
}

func TestCounterPaymentExpiredCannotBeChosen(t *testing.T) {
	t.Parallel()
	p, s := startBills(t)
	c := p.SignedIn(t, "finance")
	res := c.Get("/payments/new?nis=2024002")
	exp := res.Doc.Find(`[data-testid="payment-line"][data-component="` + s.id("Seragam") + `"]`)
	if exp.Length() != 1 {
		t.Fatal("the expired component is not shown")
	}
	if box := exp.Find(`input[type="checkbox"]`); box.AttrOr("disabled", "x") == "x" || box.AttrOr("name", "") != "" {
		t.Error("the expired component can be chosen")
	}
	if !strings.Contains(billsText(exp.Find(`[data-testid="not-payable"]`)), "Kedaluwarsa") {
		t.Errorf("reason %q", billsText(exp))
	}
	if got := billsText(res.Doc.Find(`[data-testid="payable-total"]`)); got != "Rp 200.000" {
		t.Errorf("payable total %q (the expired one must not count)", got)
	}
	// A forged post naming it anyway.
	for _, path := range []string{"/payments/confirm", "/payments"} {
		res := c.Post(path, url.Values{"nis": {"2024002"}, "ref": {"KW-9"}, "component": {s.id("Seragam")}, "total": {"300000"}})
		if res.StatusCode != http.StatusConflict || !strings.Contains(billsText(res.Doc.Find(`[data-testid="payment-refused"]`)), "kedaluwarsa") {
			t.Errorf("%s with the expired one: %d %q", path, res.StatusCode, billsText(res.Doc.Find(`[data-testid="payment-refused"]`)))
		}
	}
	if es := billsPayAudit(t, p); len(es) != 0 {
		t.Fatalf("audited %+v", es)
	}
}

func TestCounterPaymentValidation(t *testing.T) {
	t.Parallel()
	p, s := startBills(t)
	c := p.SignedIn(t, "finance")
	late := s.id("SPP Oktober")
	tests := []struct {
		name   string
		form   url.Values
		status int
		sel    string
		want   string
	}{
		{"ref missing", url.Values{"nis": {"2024001"}, "ref": {"  "}, "component": {late}}, 422, `[data-testid="error-ref"]`, "Wajib diisi"},
		{"ref with spaces", url.Values{"nis": {"2024001"}, "ref": {"KW 1"}, "component": {late}}, 422, `[data-testid="error-ref"]`, "tanpa spasi"},
		{"ref too long", url.Values{"nis": {"2024001"}, "ref": {strings.Repeat("K", 41)}, "component": {late}}, 422, `[data-testid="error-ref"]`, "maksimal 40"},
		{"nothing chosen", url.Values{"nis": {"2024001"}, "ref": {"KW-1"}}, 422, `[data-testid="payment-refused"]`, "Pilih minimal satu"},
		{"bad nis", url.Values{"nis": {"20/24"}, "ref": {"KW-1"}, "component": {late}}, 422, `[data-testid="error-nis"]`, "NIS hanya boleh berisi"},
		{"unknown nis", url.Values{"nis": {"8888"}, "ref": {"KW-1"}, "component": {late}}, 404, `[data-testid="error-nis"]`, "Tidak ada siswa dengan NIS 8888"},
		{"another student's component", url.Values{"nis": {"2024002"}, "ref": {"KW-1"}, "component": {late}}, 409, `[data-testid="payment-refused"]`, "sudah tidak ada"},
	}
	for _, tt := range tests {
		res := c.Post("/payments/confirm", tt.form)
		if res.StatusCode != tt.status || !strings.Contains(billsText(res.Doc.Find(tt.sel)), tt.want) {
			t.Errorf("%s: %d %q", tt.name, res.StatusCode, billsText(res.Doc.Find(tt.sel)))
		}
		if tt.form.Get("nis") == "2024001" {
			// The form comes back with the choice and the typed reference.
			if res.Doc.Find(`input[name="component"][value="`+late+`"][checked]`).Length() != len(tt.form["component"]) {
				t.Errorf("%s: the choice was lost", tt.name)
			}
			if v := res.Doc.Find(`#f-ref`).AttrOr("value", ""); v != strings.TrimSpace(tt.form.Get("ref")) {
				t.Errorf("%s: ref shown %q", tt.name, v)
			}
		}
	}
	// The total changed since the confirmation (it was shown yesterday, before the penalty).
	res := c.Post("/payments", url.Values{"nis": {"2024001"}, "ref": {"KW-1"}, "component": {late}, "total": {"250000"}})
	if res.StatusCode != http.StatusConflict || !strings.Contains(billsText(res.Doc.Find(`[data-testid="payment-warning"]`)), "Rp 275.000") {
		t.Errorf("changed total: %d %q", res.StatusCode, billsText(res.Doc.Find(`[data-testid="payment-warning"]`)))
	}
	if es := billsPayAudit(t, p); len(es) != 0 {
		t.Fatalf("audited %+v", es)
	}
}

func TestCounterPaymentUpstreamDown(t *testing.T) {
	t.Parallel()
	p, s := startBills(t)
	c := p.SignedIn(t, "finance")
	id := s.id("SPP Oktober")
	p.Sandbox.SetFaults(sandbox.Faults{ErrorRate: 1, Status: 503})
	for _, path := range []string{"/payments/confirm", "/payments"} {
		res := c.Post(path, url.Values{"nis": {"2024001"}, "ref": {"KW-5"}, "component": {id}, "total": {"275000"}})
		if res.StatusCode != http.StatusBadGateway {
			t.Errorf("%s: %d", path, res.StatusCode)
		}
		if msg := billsText(res.Doc.Find(`[data-testid="payment-error"]`)); !strings.Contains(msg, "sedang tidak tersedia") || !strings.Contains(msg, "Tidak ada yang tercatat") {
			t.Errorf("%s: message %q", path, msg)
		}
		if v := res.Doc.Find(`#f-q`).AttrOr("value", ""); v != "2024001" {
			t.Errorf("%s: NIS lost", path)
		}
	}
	if res := c.Get("/payments/new?nis=2024001"); res.StatusCode != http.StatusBadGateway {
		t.Errorf("lookup while down: %d", res.StatusCode)
	}
	p.Sandbox.SetFaults(sandbox.Faults{})
	if got := billByID(t, p, "2024001", id); got.State != billing.StateProvisioned {
		t.Fatalf("paid while the service was down: %+v", got)
	}
	if es := billsPayAudit(t, p); len(es) != 0 {
		t.Fatalf("audited %+v", es)
	}
}

// TestCounterPaymentTimeout: the service applies the payment but never answers. The page
// must say it may be recorded and send the person to check, never retry by itself.
func TestCounterPaymentTimeout(t *testing.T) {
	t.Parallel()
	// Seed 2 draws 0.77, 0.60, 0.57, 0.10: with a rate of 0.5 the first three requests
	// after the faults are set (reading the student's components: a page, then the empty
	// page that ends the listing; looking for other payments under the receipt number) are
	// answered and the fourth (the payment) hangs.
	p := portaltest.Start(t, portaltest.Options{Now: billsNow, UpstreamTimeout: time.Second,
		Sandbox: func(o *sandbox.Options) { o.Seed = 2 }})
	s := seedBills(t, p)
	c := p.SignedIn(t, "finance")
	id := s.id("SPP Oktober")
	p.Sandbox.SetFaults(sandbox.Faults{TimeoutRate: 0.5})
	res := c.Post("/payments", url.Values{"nis": {"2024001"}, "ref": {"KW-7"}, "component": {id}, "total": {"275000"}})
	p.Sandbox.SetFaults(sandbox.Faults{})
	if res.StatusCode != http.StatusGatewayTimeout {
		t.Fatalf("status %d (if 502/504 on the read, the sandbox's fault draws changed): %s", res.StatusCode, billsText(res.Doc.Find("main")))
	}
	box := billsText(res.Doc.Find(`[data-testid="payment-unknown"]`))
	if !strings.Contains(box, "mungkin sudah tercatat") || !strings.Contains(box, "Jangan mencatat ulang") {
		t.Errorf("message %q", box)
	}
	if href := res.Doc.Find(`[data-testid="check-bills"]`).AttrOr("href", ""); href != "/bills?nis=2024001&state=all" {
		t.Errorf("check link %q", href)
	}
	if res.Doc.Find(`form[action="/payments"]`).Length() != 0 {
		t.Error("the page offers to pay again")
	}
	es := billsPayAudit(t, p)
	if len(es) != 1 || es[0].Outcome != changes.OutcomeUnknown {
		t.Fatalf("audit %+v", es)
	}
	// It was in fact applied; the receipt link finds it.
	if got := billByID(t, p, "2024001", id); got.State != billing.StatePaid {
		t.Fatalf("not applied: %+v", got)
	}
	if res := c.Get(res.Doc.Find(`[data-testid="check-receipt"]`).AttrOr("href", "")); res.StatusCode != http.StatusOK {
		t.Fatalf("receipt after the timeout: %d", res.StatusCode)
	}
}

func TestReceiptNotFound(t *testing.T) {
	t.Parallel()
	p, _ := startBills(t)
	c := p.SignedIn(t, "finance")
	for _, q := range []string{"nis=2024003&ref=NOPE", "nis=2024001&ref=BANK-001", "nis=9999&ref=BANK-001", "nis=&ref=", "nis=2024003"} {
		res := c.Get("/payments/receipt?" + q)
		if res.StatusCode != http.StatusNotFound || res.Doc.Find(`[data-testid="receipt"]`).Length() != 0 {
			t.Errorf("%s: %d", q, res.StatusCode)
		}
	}
	res := c.Get("/payments/receipt?nis=2024003&ref=BANK-001")
	if res.StatusCode != http.StatusOK || billsText(res.Doc.Find(`[data-testid="receipt-total"]`)) != "Total Rp 150.000" {
		t.Fatalf("bank payment receipt: %d %q", res.StatusCode, billsText(res.Doc.Find(`[data-testid="receipt-total"]`)))
	}
}

// TestBillsDemoSchool runs the pages over the sandbox's demo school (600 students, a school
// year of components) on 5 Dec 2026, five days before the monthly due date.
func TestBillsDemoSchool(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: time.Date(2026, 12, 5, 3, 0, 0, 0, time.UTC), Demo: true})
	c := p.SignedIn(t, "principal")
	res := c.Get("/bills")
	if n := len(billRowNames(res.Doc)); n != 50 || res.Doc.Find(`[data-testid="page-next"]`).Length() != 1 {
		t.Fatalf("first page of the demo school: %d rows", n)
	}
	res = c.Get("/bills?state=provisioned&offset=50&sort=-amount", "HX-Request", "true")
	if n := len(billRowNames(res.Doc)); n != 50 || res.Doc.Find(`[data-testid="page-prev"]`).Length() != 1 {
		t.Fatalf("second page: %d rows", n)
	}
	// Without ?sort= the list is by due date, and its header says so.
	byDefault, byDue := c.Get("/bills?state=all"), c.Get("/bills?state=all&sort=due")
	if got, want := billRowIDs(byDefault.Doc), billRowIDs(byDue.Doc); len(got) != 50 || !slices.Equal(got, want) {
		t.Errorf("default order %v…, by due %v…", got[:min(2, len(got))], want[:min(2, len(want))])
	}
	if aria := byDefault.Doc.Find(`th:has([data-testid="sort-due"])`).AttrOr("aria-sort", ""); aria != "ascending" {
		t.Errorf("due header aria-sort %q by default", aria)
	}

	// The pager's jump form: a GET with the list's filters kept and ?page=N, the same rows
	// as the offset of page N.
	res = c.Get("/bills?state=all&sort=due&limit=25")
	form := res.Doc.Find(`form[data-testid="page-jump"]`)
	if form.Length() != 1 || form.AttrOr("method", "") != "get" || form.AttrOr("action", "") != "/bills" {
		t.Fatalf("jump form: %d, method %q action %q", form.Length(), form.AttrOr("method", ""), form.AttrOr("action", ""))
	}
	jump := url.Values{}
	form.Find(`input[type="hidden"]`).Each(func(_ int, in *goquery.Selection) { jump.Add(in.AttrOr("name", ""), in.AttrOr("value", "")) })
	if jump.Get("state") != "all" || jump.Get("sort") != "due" || jump.Get("limit") != "25" || jump.Has("offset") {
		t.Errorf("jump form keeps %v", jump)
	}
	count, _ := strconv.Atoi(strings.ReplaceAll(strings.Fields(billsText(res.Doc.Find(`[data-testid="bills-count"]`)))[0], ".", ""))
	if want := "dari " + i18n.Number(int64((count+24)/25)); !strings.Contains(billsText(form), want) || count < 100 {
		t.Errorf("jump form says %q, want %q (%d bills)", billsText(form), want, count)
	}
	jump.Set(form.Find(`[data-testid="page-jump-input"]`).AttrOr("name", ""), "3")
	byPage := c.Get("/bills?" + jump.Encode())
	byOffset := c.Get("/bills?state=all&sort=due&limit=25&offset=50")
	if got, want := billRowIDs(byPage.Doc), billRowIDs(byOffset.Doc); len(got) != 25 || !slices.Equal(got, want) {
		t.Errorf("page 3: %d rows %v…, offset 50: %v…", len(got), got[:min(2, len(got))], want[:min(2, len(want))])
	}
	if v := byPage.Doc.Find(`[data-testid="page-jump-input"]`).AttrOr("value", ""); v != "3" {
		t.Errorf("after the jump the form says page %q", v)
	}

	res = c.Get("/bills/upcoming")
	days := res.Doc.Find(`[data-testid="due-day"]`)
	if days.Length() == 0 {
		t.Fatal("no upcoming dues in the demo school")
	}
	if n := res.Doc.Find(`[data-testid="upcoming-row"]`).Length(); billsText(res.Doc.Find(`[data-testid="upcoming-count"]`)) != strconv.Itoa(n) {
		t.Errorf("count %q, rows %d", billsText(res.Doc.Find(`[data-testid="upcoming-count"]`)), n)
	}
	days.Each(func(_ int, d *goquery.Selection) {
		day, _ := time.Parse(time.DateOnly, d.AttrOr("data-day", ""))
		if day.Before(billDay("2026-12-05")) || day.After(billDay("2026-12-11")) {
			t.Errorf("day %s outside the week", d.AttrOr("data-day", ""))
		}
	})
}

// The bills list reads the ledger: the count and total of the whole result, a sort that
// orders every page, a search by a student's name or NIS, exact pages.
func TestBillsWholeResult(t *testing.T) {
	t.Parallel()
	p, _ := startBills(t)
	c := p.SignedIn(t, "finance")

	// Sorted by amount across all of it (the paging's own test pages a sort by due).
	res := c.Get("/bills?state=all&sort=amount")
	if got := billRowNames(res.Doc); !slices.Equal(got, []string{"Buku", "SPP November", "SPP Oktober", "SPP Desember", "Seragam", "Study tour"}) {
		t.Errorf("all by amount: %v", got)
	}
	if got := billsText(res.Doc.Find(`[data-testid="bills-count"]`)); got != "6 tagihan" {
		t.Errorf("count %q", got)
	}
	if got := billsText(res.Doc.Find(`[data-testid="bills-summary-paid"]`)); got != "nominal yang lunas Rp 150.000" {
		t.Errorf("paid %q", got)
	}
	// A sort header links to the first page of the other order.
	if href := res.Doc.Find(`[data-testid="sort-amount"]`).AttrOr("href", ""); href != "/bills?sort=-amount&state=all" {
		t.Errorf("sort header %q", href)
	}

	// Search by part of a name (any case), or by the start of a NIS.
	for _, tt := range []struct {
		q    string
		want []string
	}{
		{"siti", []string{"SPP Oktober", "SPP Desember"}},
		{"  BUDI   santoso ", []string{"SPP November", "Seragam"}},
		{"202400", []string{"Study tour", "Buku", "Seragam", "SPP November", "SPP Desember", "SPP Oktober"}},
		{"2024003", []string{"Study tour", "Buku"}},
		{"nobody", nil},
	} {
		res := c.Get("/bills?" + url.Values{"state": {"all"}, "q": {tt.q}, "sort": {"-due"}}.Encode())
		got := billRowNames(res.Doc)
		if res.StatusCode != http.StatusOK || len(got) != len(tt.want) {
			t.Errorf("search %q: %d %v, want %v", tt.q, res.StatusCode, got, tt.want)
			continue
		}
		for _, w := range tt.want {
			if !slices.Contains(got, w) {
				t.Errorf("search %q: %v lacks %s", tt.q, got, w)
			}
		}
		if v := res.Doc.Find(`[data-testid="bills-search"]`).AttrOr("value", ""); v != strings.Join(strings.Fields(tt.q), " ") {
			t.Errorf("search %q shows as %q", tt.q, v)
		}
		if got := billsText(res.Doc.Find(`[data-testid="bills-count"]`)); got != fmt.Sprintf("%d tagihan", len(tt.want)) {
			t.Errorf("search %q: count %q", tt.q, got)
		}
	}
	// Without JavaScript the search is a field of the GET form.
	if el := c.Get("/bills").Doc.Find(`form[data-testid="bills-filters"] input[name="q"][type="search"]`); el.Length() != 1 {
		t.Error("no search field in the filter form")
	}
}

// An open bills page or dashboard asks every few seconds whether its figures changed: a
// cheap 204 while nothing did; the new figures once something did (here a payment the
// service announces through its callback, over real HTTP, to the real route).
func TestLivePagesAnswerOnlyChanges(t *testing.T) {
	t.Parallel()
	p, s := startBills(t)
	c := p.SignedIn(t, "finance")
	for _, page := range []struct{ path, container string }{{"/", "#dashboard"}, {"/bills?state=all", "#bills-results"}} {
		res := c.Get(page.path)
		live := res.Doc.Find(page.container).AttrOr("hx-get", "")
		if live == "" || res.Doc.Find(page.container).AttrOr("hx-trigger", "") != "every 10s, live:show" {
			t.Fatalf("%s: no live updates on %s: %q", page.path, page.container, live)
		}
		if res := c.Get(live, "HX-Request", "true"); res.StatusCode != http.StatusNoContent || res.Body != "" {
			t.Errorf("%s unchanged: %d %q", page.path, res.StatusCode, res.Body)
		}
		// Without HTMX the same address is the page.
		if res := c.Get(live); res.StatusCode != http.StatusOK || !strings.Contains(res.Body, "<html") {
			t.Errorf("%s live address without HTMX: %d", page.path, res.StatusCode)
		}
	}
	dash := c.Get("/").Doc.Find("#dashboard").AttrOr("hx-get", "")
	bills := c.Get("/bills?state=all").Doc.Find("#bills-results").AttrOr("hx-get", "")

	// A parent pays SPP November at a bank; the service calls the portal back.
	if err := sandboxPost(p, "/_sandbox/bank-payment", map[string]any{"bill_key": "2024002", "bill_component_list": []string{s.id("SPP November")},
		"merchant_name": "BCA"}); err != nil {
		t.Fatal(err)
	}
	p.AwaitCallbacks(t)
	res := c.Get(dash, "HX-Request", "true")
	if res.StatusCode != http.StatusOK || strings.Contains(res.Body, "<html") || res.Doc.Find("#dashboard").Length() != 1 {
		t.Fatalf("dashboard after a payment: %d", res.StatusCode)
	}
	if got := billsText(res.Doc.Find(`[data-testid="card-collected-today"] [data-testid="value"]`)); got != "Rp 200.000" {
		t.Errorf("collected today after the callback: %q", got)
	}
	res = c.Get(bills, "HX-Request", "true")
	if row := billRow(res.Doc, s.id("SPP November")); res.StatusCode != http.StatusOK || row.AttrOr("data-status", "") != "paid" {
		t.Errorf("bills after the callback: %d, SPP November %q", res.StatusCode, row.AttrOr("data-status", ""))
	}
	if res.Header.Get("HX-Push-Url") != "" {
		t.Errorf("a live update pushed %q into the history", res.Header.Get("HX-Push-Url"))
	}
}
