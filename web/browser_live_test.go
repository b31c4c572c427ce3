package web_test

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/sekolah/portal/internal/config"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/portaltest"
)

// A parent pays at a bank while the principal watches the dashboard: the service calls
// the portal back, and the money appears on the open page without a reload (the page
// asks every PORTAL_LIVE_EVERY, a second here, whether its figures changed).
func TestBrowserDashboardShowsBankPaymentLive(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: billsNow, Config: func(c *config.Config) { c.LiveEvery = time.Second }})
	s := seedBills(t, p)
	b := p.NewBrowser(t)
	b.SignIn("principal", portaltest.Password)
	b.Visit("/")
	card := `[data-testid="card-collected-today"] [data-testid="value"]`
	b.WaitText(card, i18n.Rupiah(0))
	// A mark on this very page: a reload would lose it.
	portaltest.Get(b, chromedp.Evaluate[bool](`window.stillThisPage = true`))

	if err := sandboxPost(p, "/_sandbox/bank-payment", map[string]any{"bill_key": "2024002", "bill_component_list": []string{s.id("SPP November")},
		"merchant_name": "Indomaret"}); err != nil {
		t.Fatal(err)
	}
	b.WaitText(card, i18n.Rupiah(200_000))
	if !portaltest.Get(b, chromedp.Evaluate[bool](`window.stillThisPage === true`)) {
		t.Fatal("the page was reloaded to show the payment")
	}
	b.Screenshot("dashboard-live")

	// The bills page too: the payment moves SPP November off the outstanding tab.
	b.Visit("/bills")
	row := `[data-testid="bill-row"][data-component="` + s.id("SPP Desember") + `"]`
	b.WaitVisible(row)
	portaltest.Get(b, chromedp.Evaluate[bool](`window.stillThisPage = true`))
	before := b.Count(`[data-testid="bill-row"]`)
	if err := sandboxPost(p, "/_sandbox/bank-payment", map[string]any{"bill_key": "2024001", "bill_component_list": []string{s.id("SPP Desember")}}); err != nil {
		t.Fatal(err)
	}
	b.WaitText(`[data-testid="bills-count"]`, "2 tagihan")
	if n := b.Count(`[data-testid="bill-row"]`); n != before-1 || b.Count(row) != 0 {
		t.Errorf("after the payment: %d rows (was %d), the paid one still there: %v", n, before, b.Count(row) != 0)
	}
	if !portaltest.Get(b, chromedp.Evaluate[bool](`window.stillThisPage === true`)) {
		t.Fatal("the bills page was reloaded")
	}
}
