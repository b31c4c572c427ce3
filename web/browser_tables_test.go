package web_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/chromedp/chromedp"

	"github.com/sekolah/portal/internal/portaltest"
)

// tablesPage is one page the finance officer reads tables on.
type tablesPage struct {
	name, path string
}

// tablesPages finds, on the demo school, a student with many components and a receipt, and
// lists every page with tables.
func tablesPages(t *testing.T, p *portaltest.Portal) []tablesPage {
	t.Helper()
	res := p.SignedIn(t, "finance").Get("/bills?state=paid&limit=100")
	receipt := res.Doc.Find(`[data-testid="receipt-link"]`).First().AttrOr("href", "")
	// The student who appears most often among a hundred paid bills has many components.
	count, nis := map[string]int{}, ""
	res.Doc.Find(`[data-testid="student-link"]`).Each(func(_ int, a *goquery.Selection) {
		n := strings.TrimSpace(a.Text())
		if count[n]++; count[n] > count[nis] {
			nis = n
		}
	})
	if receipt == "" || nis == "" {
		t.Fatalf("demo school: receipt %q, student %q", receipt, nis)
	}
	return []tablesPage{
		{"dashboard", "/"},
		{"students", "/students"},
		{"student", "/students/" + nis},
		{"counter", "/payments/new?nis=" + nis},
		{"receipt", receipt},
		{"bills", "/bills"},
		{"report-payments", "/reports/payments"},
		{"report-accounts", "/reports/accounts"},
		{"report-outstanding", "/reports/outstanding"},
		{"report-statement", "/reports/statement?nis=" + nis},
		{"statement", "/students/" + nis + "/statement"},
	}
}

// tableFit is how one table sits in its box.
type tableFit struct {
	Name   string  `json:"name"`
	Scroll float64 `json:"scroll"`
	Client float64 `json:"client"`
	Cards  bool    `json:"cards"`
	Shown  bool    `json:"shown"`
}

// pageFit is what TestBrowserTablesFit measures on a page.
type pageFit struct {
	Tables    []tableFit `json:"tables"`
	DocScroll float64    `json:"docScroll"`
	Inner     float64    `json:"inner"`
	Header    float64    `json:"header"`
}

// measureTables: each table against its parent (the box that would scroll), whether it is a
// phone card list (table--cards, or the counter's own card lines) shown as blocks, the
// page's horizontal overflow, and where the content starts (the header's height).
const measureTables = `(() => {
	const tables = [...document.querySelectorAll('main table')].map(t => ({
		name: t.dataset.testid || t.className,
		scroll: t.parentElement.scrollWidth, client: t.parentElement.clientWidth,
		cards: t.classList.contains('table--cards') || t.classList.contains('counter-lines'),
		shown: getComputedStyle(t).display === 'block' && getComputedStyle(t.querySelector('tbody tr') || t).display !== 'table-row',
	}));
	return {tables, docScroll: document.documentElement.scrollWidth, inner: innerWidth,
		header: document.querySelector('main').getBoundingClientRect().top + scrollY};
})()`

// billsRowsInView scrolls the bills table to the top of the window and counts the rows
// wholly inside it.
const billsRowsInView = `(() => {
	document.querySelector('[data-testid="bills-table"]').scrollIntoView();
	return [...document.querySelectorAll('[data-testid="bill-row"]')].filter(r => {
		const b = r.getBoundingClientRect();
		return b.top >= 0 && b.bottom <= innerHeight;
	}).length;
})()`

// chartLabels lists the dashboard's chart labels drawn under 11 px on screen, or
// overlapping their neighbour.
const chartLabels = `(() => {
	const bad = [];
	for (const svg of document.querySelectorAll('.chart svg')) {
		const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
		let prev = null;
		for (const t of svg.querySelectorAll('text')) {
			const px = parseFloat(getComputedStyle(t).fontSize) * scale;
			if (px < 11) bad.push(t.textContent + ' ' + px.toFixed(1) + 'px');
			const r = t.getBoundingClientRect();
			if (prev && Math.abs(prev.top - r.top) < 2 && prev.right > r.left + 1) bad.push(t.textContent + ' overlaps');
			prev = r;
		}
	}
	return bad;
})()`

// TestBrowserTablesFit: at 1366×768 no table is wider than its box (no money column behind
// a scroll bar) and the bills list shows 15 rows at once; at 390×844 the tables marked as
// cards are cards, nothing overflows the page sideways and the header takes at most a
// sixth of the height, and the dashboard's chart labels read at 11 px or more without
// overlapping. One demo-school portal serves both sizes, each in a tab of its own, side by
// side.
func TestBrowserTablesFit(t *testing.T) {
	t.Parallel()
	p, _ := reportsDemoPortal(t)
	pages := tablesPages(t, p)
	for _, size := range []struct {
		w, h  int64
		phone bool
	}{{1366, 768, false}, {390, 844, true}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			t.Parallel()
			b := p.NewBrowser(t)
			b.SignIn("finance", portaltest.Password)
			tablesFitAt(t, b, pages, size.w, size.h, size.phone)
		})
	}
}

// tablesFitAt checks every page at one window size.
func tablesFitAt(t *testing.T, b *portaltest.Browser, pages []tablesPage, w, h int64, phone bool) {
	b.Do(chromedp.EmulateViewport(w, h))
	for _, pg := range pages {
		b.Visit(pg.path)
		m := portaltest.Get(b, chromedp.Evaluate[pageFit](measureTables))
		if len(m.Tables) == 0 {
			t.Errorf("%d %s: no table", w, pg.name)
		}
		if m.DocScroll > m.Inner {
			t.Errorf("%d %s: the page is %v px wide in a %v px window", w, pg.name, m.DocScroll, m.Inner)
		}
		for _, tb := range m.Tables {
			switch {
			case !phone && tb.Scroll > tb.Client+1:
				t.Errorf("%d %s: table %s is %v px wide in a %v px box", w, pg.name, tb.Name, tb.Scroll, tb.Client)
			case phone && tb.Cards && !tb.Shown:
				t.Errorf("%d %s: table %s is not shown as cards", w, pg.name, tb.Name)
			case phone && tb.Cards && tb.Scroll > tb.Client+1:
				t.Errorf("%d %s: the cards of %s are %v px wide in a %v px box", w, pg.name, tb.Name, tb.Scroll, tb.Client)
			}
		}
		if phone && m.Header > float64(h)/6 {
			t.Errorf("%d %s: the header takes %v px of %d", w, pg.name, m.Header, h)
		}
		if phone && pg.name == "dashboard" {
			// The folded navigation opens without JavaScript's help and leads on.
			b.Click(`.phone-nav summary`)
			b.Click(`.phone-nav a[href="/bills"]`)
			b.WaitVisible(`[data-testid="bills-table"]`)
			b.Visit(pg.path)
			if bad := portaltest.Get(b, chromedp.Evaluate[[]string](chartLabels)); len(bad) > 0 {
				t.Errorf("dashboard at 390: chart labels %v", bad)
			}
		}
		if !phone && pg.name == "bills" {
			if n := portaltest.Get(b, chromedp.Evaluate[int](billsRowsInView)); n < 15 {
				t.Errorf("bills at 1366×768: %d rows in view, want at least 15", n)
			}
		}
		b.Screenshot("tables-" + pg.name + "-" + map[bool]string{false: "1366", true: "390"}[phone])
	}
}
