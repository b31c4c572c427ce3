package web_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/sekolah/portal/internal/portaltest"
)

// The accessibility and layout sweep: every page the navigation and the main flows reach,
// signed in as admin, finance and principal, at 1366×768 and 390×844. On each page
// axe-core (vendored in testdata/axe, see its README) runs with its default rules and
// WCAG 2.2's target size, and any serious or critical violation fails; and the page is
// measured: nothing wider than the screen (the document, or an element outside a box that
// scrolls on its own), no box that scrolls its rows up and down inside the page, and the
// side navigation's background as tall as the page beside it. Lighthouse cannot run here
// (it downloads its own Chromium and needs the network); its target-size audit is axe's
// target-size rule.

var axeSource = sync.OnceValues(func() (string, error) {
	b, err := os.ReadFile("testdata/axe/axe.min.js")
	return string(b), err
})

// sweepPage is one page of the sweep: a name for the failure messages and screenshots,
// and its address; or the page a form there answers (a confirmation step, a plan's
// preview): the buttons clicked on it, in order, and what the answer shows.
type sweepPage struct {
	name, path string
	clicks     []string
	shows      string
}

// sweepPages lists, for role on the demo school, the pages of its navigation (read from
// the page) and those its flows reach: a student and their documents, the counter's
// steps, a receipt, the reports, the settings and the staff for an admin.
func sweepPages(t *testing.T, p *portaltest.Portal, role string) []sweepPage {
	t.Helper()
	c := p.SignedIn(t, role)
	var out []sweepPage
	seen := map[string]bool{}
	add := func(name, path string) {
		if path != "" && !seen[path] {
			seen[path] = true
			out = append(out, sweepPage{name: name, path: path})
		}
	}
	home := c.Get("/")
	home.Doc.Find(`.sidenav a`).Each(func(_ int, a *goquery.Selection) {
		add("nav-"+strings.TrimPrefix(a.AttrOr("data-testid", ""), "nav-"), a.AttrOr("href", ""))
	})
	first := func(path, sel string) string {
		return c.Get(path).Doc.Find(sel).First().AttrOr("href", "")
	}
	paid := c.Get("/bills?state=paid&limit=25")
	nis := strings.TrimSpace(paid.Doc.Find(`[data-testid="student-link"]`).First().Text())
	add("student", "/students/"+nis)
	add("student-statement", "/students/"+nis+"/statement")
	add("student-letter", "/students/"+nis+"/letter")
	add("student-reminder", "/students/"+nis+"/reminder")
	add("receipt", paid.Doc.Find(`[data-testid="receipt-link"]`).First().AttrOr("href", ""))
	add("bills-expired", "/bills?state=expired")
	add("bills-upcoming", "/bills/upcoming")
	add("reports-payments", "/reports/payments")
	add("reports-outstanding", "/reports/outstanding")
	add("reports-accounts", "/reports/accounts")
	add("reports-statement", "/reports/statement?nis="+nis)
	add("reports-alumni", "/reports/alumni")
	add("letters", "/students/letters")
	add("account", "/account")
	add("reports-discounts", "/reports/discounts")
	add("plans-candidates", "/plans/candidates")
	add("student-discounts", "/students/"+nis+"/discounts")
	plan := first("/plans", `main a[href^="/plans/"][href$="/"], main td a[href^="/plans/"]`)
	if plan != "" {
		add("plan", plan)
		add("plan-kartu", strings.TrimSuffix(plan, "/")+"/kartu")
	}
	if role == "principal" {
		return out
	}
	// Pages answering a form: a guarded action's confirmation step (every one is the same
	// template), and a plan's preview for a class.
	out = append(out, sweepPage{name: "confirm-step", path: "/account", clicks: []string{`[data-testid="sessions-end-all"]`},
		shows: `[data-testid="confirm-step"]`})
	if plan != "" {
		out = append(out, sweepPage{name: "plan-preview", path: plan, clicks: []string{`[data-testid="apply-class"]`, `[data-testid="apply-preview"]`},
			shows: `[data-testid="plan-preview"]`})
	}
	add("counter-student", "/payments/new?nis="+nis)
	open := c.Get("/bills?nis=" + nis)
	if row := open.Doc.Find(`[data-testid="bill-row"]`).First(); row.Length() == 1 {
		add("counter-confirm", "/payments/confirm?"+url.Values{"nis": {nis}, "ref": {"KW-SWEEP-1"}, "component": {row.AttrOr("data-component", "")}}.Encode())
		add("component-edit", row.Find(`[data-testid="bill-edit"]`).AttrOr("href", ""))
		add("component-cancel", row.Find(`[data-testid="bill-cancel"]`).AttrOr("href", ""))
		add("component-instalments", "/students/"+nis+"/components/"+row.AttrOr("data-component", "")+"/instalments")
	}
	if row := c.Get("/bills?state=expired").Doc.Find(`[data-testid="bill-row"]`).First(); row.Length() == 1 {
		add("counter-extend", "/payments/extend?"+url.Values{"nis": {strings.TrimSpace(row.Find(`[data-testid="student-link"]`).Text())},
			"component": {row.AttrOr("data-component", "")}}.Encode())
	}
	add("student-edit", "/students/"+nis+"/edit")
	add("student-status", "/students/"+nis+"/status")
	add("student-contacts", "/students/"+nis+"/contacts")
	add("student-components-new", "/students/"+nis+"/components/new")
	add("student-new", "/students/new")
	add("bulk-correct", first("/bills?account=SPP", `[data-testid="bulk-correct"]`))
	add("uploads-history", "/uploads/history")
	add("notices", "/notices")
	add("plan-new", "/plans/new")
	if role != "admin" {
		return out
	}
	add("staff-member", first("/staff", `main a[href^="/staff/"]`))
	add("fee-template-new", "/settings/fee-templates/new")
	add("fee-template", first("/settings/fee-templates", `main td a[href^="/settings/fee-templates/"]`))
	add("settings-registration", "/settings/registration")
	add("settings-school", "/settings/school")
	add("settings-messages", "/settings/messages")
	add("settings-messages-sent", "/settings/messages/sent")
	add("settings-data", "/settings/data")
	return out
}

// sweepPlan gives the demo school a fee plan applied to its first class, so that the
// plan's page and its kartu SPP (a grid of paid, unpaid and late cells) are swept too.
func sweepPlan(t *testing.T, p *portaltest.Portal) {
	t.Helper()
	classes, err := p.DB.Classes(context.Background())
	if err != nil || len(classes) == 0 {
		t.Fatalf("the demo's classes: %v %v", classes, err)
	}
	applyPlan(t, p, strings.TrimPrefix(makePlan(t, p.SignedIn(t, "finance"), sppValues()), "/plans/"), classes[0])
}

// axeFinding is one serious or critical axe violation on a page.
type axeFinding struct {
	ID     string   `json:"id"`
	Impact string   `json:"impact"`
	Help   string   `json:"help"`
	Nodes  []string `json:"nodes"`
}

// layoutFinding is what the measuring found wrong on a page.
type layoutFinding struct {
	DocWidth   float64  `json:"docWidth"`
	Inner      float64  `json:"inner"`
	Wide       []string `json:"wide"`
	InnerBoxes []string `json:"innerBoxes"`
	Clipped    []string `json:"clipped"`
	NavShort   float64  `json:"navShort"`
	Version    string   `json:"version"`
}

// runAxe runs axe on the page and keeps the serious and critical violations, with up to
// three of each one's elements.
const runAxe = `axe.run(document, {resultTypes: ['violations'], rules: {'target-size': {enabled: true}}}).then(r =>
	r.violations.filter(v => v.impact === 'serious' || v.impact === 'critical').map(v => ({
		id: v.id, impact: v.impact, help: v.help,
		nodes: v.nodes.slice(0, 3).map(n => n.target.join(' ') + ' — ' + (n.failureSummary || '').split('\n').slice(1, 2).join('')),
	})))`

// measureLayout finds what is wider than the screen outside a box that scrolls on its own
// (naming the outermost such element), boxes inside the main content that scroll their
// content up and down, selects too narrow for the option they show ("Semester Ganjil 2…"),
// and how much shorter the side navigation is than the page beside it.
const measureLayout = `(() => {
	const inner = document.documentElement.clientWidth;
	const scrolls = el => { for (let e = el.parentElement; e && e !== document.body; e = e.parentElement) {
		const o = getComputedStyle(e).overflowX; if (o === 'auto' || o === 'scroll' || o === 'hidden') return true; } return false; };
	const name = el => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (el.dataset.testid ? '[data-testid=' + el.dataset.testid + ']' : '') +
		(el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\s+/).join('.') : '');
	const wide = [];
	for (const el of document.body.querySelectorAll('*')) {
		const r = el.getBoundingClientRect();
		if (r.width <= 1 || r.height <= 1 || r.right <= inner + 1 || scrolls(el)) continue;
		const cs = getComputedStyle(el); if (cs.visibility === 'hidden' || cs.position === 'fixed') continue;
		if (wide.some(w => w.el.contains(el))) continue;
		wide.push({el, text: name(el) + ' right ' + Math.round(r.right)});
	}
	const innerBoxes = [...document.querySelectorAll('main *:not(textarea):not(select)')].filter(el => {
		const o = getComputedStyle(el).overflowY;
		return (o === 'auto' || o === 'scroll') && el.scrollHeight > el.clientHeight + 2 && el.clientHeight > 0;
	}).map(el => name(el) + ' ' + el.clientHeight + '/' + el.scrollHeight);
	const nav = document.querySelector('.sidenav'), main = document.querySelector('main');
	let navShort = 0;
	if (nav && getComputedStyle(nav).display !== 'none') {
		navShort = Math.max(0, main.getBoundingClientRect().bottom - nav.getBoundingClientRect().bottom);
	}
	const ctx = document.createElement('canvas').getContext('2d');
	const clipped = [...document.querySelectorAll('main select')].filter(el => el.checkVisibility() && el.selectedIndex >= 0).filter(el => {
		const cs = getComputedStyle(el); // its right padding holds the arrow
		ctx.font = cs.fontWeight + ' ' + cs.fontSize + ' ' + cs.fontFamily;
		const room = el.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
		return ctx.measureText(el.options[el.selectedIndex].text).width > room;
	}).map(el => name(el) + ' "' + el.options[el.selectedIndex].text + '" in ' + el.clientWidth + ' px');
	return {docWidth: document.documentElement.scrollWidth, inner, wide: wide.map(w => w.text).slice(0, 5), innerBoxes, clipped, navShort,
		version: (window.axe && axe.version) || ''};
})()`

func TestBrowserAccessibilityAndLayout(t *testing.T) {
	t.Parallel()
	src, err := axeSource()
	if err != nil {
		t.Fatalf("axe-core: %v (see testdata/axe/README.md)", err)
	}
	p, _ := reportsDemoPortal(t)
	sweepPlan(t, p)
	for _, role := range []string{"admin", "finance", "principal"} {
		t.Run(role, func(t *testing.T) {
			pages := sweepPages(t, p, role)
			b := p.NewBrowser(t)
			// axe in every document the tab loads, before the page's own scripts.
			b.Do(func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
				_, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: src})
				return chromedp.Void{}, err
			})
			b.SignIn(role, portaltest.Password)
			for _, size := range [][2]int64{{1366, 768}, {390, 844}} {
				b.Do(chromedp.EmulateViewport(size[0], size[1]))
				for _, pg := range pages {
					at := fmt.Sprintf("%s at %d: %s (%s)", role, size[0], pg.name, pg.path)
					b.Visit(pg.path)
					for _, sel := range pg.clicks {
						b.Click(sel)
					}
					if pg.shows != "" {
						b.WaitVisible(pg.shows)
					}
					found := portaltest.Get(b, chromedp.Evaluate[[]axeFinding](runAxe, chromedp.EvalAwaitPromise))
					for _, f := range found {
						t.Errorf("%s: axe %s (%s): %s\n\t%s", at, f.ID, f.Impact, f.Help, strings.Join(f.Nodes, "\n\t"))
					}
					l := portaltest.Get(b, chromedp.Evaluate[layoutFinding](measureLayout))
					if l.DocWidth > l.Inner+1 || len(l.Wide) > 0 {
						t.Errorf("%s: %0.f px wide on a screen of %0.f: %s", at, l.DocWidth, l.Inner, strings.Join(l.Wide, "; "))
					}
					if len(l.InnerBoxes) > 0 {
						t.Errorf("%s: boxes scroll their rows inside the page: %s", at, strings.Join(l.InnerBoxes, "; "))
					}
					if len(l.Clipped) > 0 {
						t.Errorf("%s: a select cuts off its chosen option: %s", at, strings.Join(l.Clipped, "; "))
					}
					if l.NavShort > 1 {
						t.Errorf("%s: the side navigation stops %0.f px above the page's end", at, l.NavShort)
					}
					if l.Version == "" {
						t.Fatalf("%s: axe-core did not load", at)
					}
					b.Screenshot(fmt.Sprintf("sweep-%s-%d-%s", role, size[0], pg.name))
				}
			}
			// A principal reads (no counter, no corrections, no uploads): fewer pages.
			least := map[string]int{"admin": 30, "finance": 25, "principal": 15}[role]
			t.Logf("%s: %d pages swept at two sizes", role, len(pages))
			if len(pages) < least || role == "admin" && !slices.ContainsFunc(pages, func(s sweepPage) bool { return s.name == "settings-school" }) {
				t.Errorf("%s: only %d pages swept", role, len(pages))
			}
		})
	}
}
