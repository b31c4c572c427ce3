package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/sekolah/portal/internal/portaltest"
)

// billsWaitFor polls a JavaScript predicate until it holds (or the step times out),
// every 20 ms: the test browser draws no frames, so a poll on animation frames would
// never run (portaltest.NewBrowser).
func billsWaitFor(b *portaltest.Browser, js string) {
	b.Do(chromedp.Poll[chromedp.Void](js, chromedp.WithPollingInterval(20*time.Millisecond)))
}

func TestBrowserCounterPaymentOfLateComponent(t *testing.T) {
	t.Parallel()
	p, s := startBills(t)
	b := p.NewBrowser(t)
	b.SignIn("finance", portaltest.Password)
	b.Visit("/")

	// From the bills browser, the late row's pay button opens the counter form.
	b.Click(`[data-testid="nav-bills"]`)
	b.Click(`[data-testid="bill-row"][data-component="` + s.id("SPP Oktober") + `"] [data-testid="pay-link"]`)
	b.WaitVisible(`[data-testid="payment-form"]`)
	b.Click(`input[name="component"][value="` + s.id("SPP Oktober") + `"]`)
	b.Type(`#f-ref`, "KW-2026/0042")
	b.Screenshot("payment-form")
	b.Click(`[data-testid="payment-continue"]`)

	if total := b.Text(`[data-testid="confirm-total"]`); total != "Rp\u00a0275.000" {
		t.Fatalf("confirmation total %q, want the amount plus the penalty", total)
	}
	b.Screenshot("payment-confirm")
	b.Click(`[data-testid="pay-submit"]`)

	b.WaitVisible(`[data-testid="receipt"]`)
	if loc := b.Location(); loc != "/payments/receipt?nis=2024001&ref=KW-2026%2F0042" {
		t.Fatalf("after paying: %s", loc)
	}
	for sel, want := range map[string]string{
		`[data-testid="receipt-penalty"]`: "Rp\u00a025.000",
		`[data-testid="receipt-total"]`:   "Rp\u00a0275.000",
		`[data-testid="receipt-ref"]`:     "KW-2026/0042",
		`[data-testid="receipt-cashier"]`: "Finance Staf",
	} {
		if got := b.Text(sel); !strings.Contains(got, want) {
			t.Errorf("receipt %s = %q, want %q", sel, got, want)
		}
	}
	if b.Count(`button[data-print]`) != 1 {
		t.Error("no print button on the receipt")
	}
	b.Screenshot("payment-receipt")
}

func TestBrowserBillsFiltersAndBackButton(t *testing.T) {
	t.Parallel()
	p, _ := startBills(t)
	b := p.NewBrowser(t)
	b.SignIn("finance", portaltest.Password)
	b.Visit("/bills?state=all")
	b.WaitVisible(`[data-testid="bills-table"]`)
	if n := b.Count(`[data-testid="bill-row"]`); n != 6 {
		t.Fatalf("all tab: %d rows", n)
	}
	b.Screenshot("bills-all")

	// First filter: the account (a select submits on change), swapped in by HTMX.
	b.Do(chromedp.Evaluate[chromedp.Void](`(() => { const s = document.querySelector("#f-account");
		s.value = "SPP"; s.dispatchEvent(new Event("change", {bubbles: true})); })()`))
	billsWaitFor(b, `location.search === "?account=SPP&state=all" && document.querySelectorAll('[data-testid="bill-row"]').length === 5`)

	// Second filter: a NIS, typed and applied (it is one of the folded filters).
	b.Click(`[data-testid="more-filters"] > summary`)
	b.Type(`#f-nis`, "2024002")
	b.Click(`[data-testid="bills-apply"]`)
	billsWaitFor(b, `location.search === "?account=SPP&nis=2024002&state=all" && document.querySelectorAll('[data-testid="bill-row"]').length === 2`)
	if b.Count(`[data-testid="bills-filters"]`) != 1 || b.Count(`#bills-results`) != 1 {
		t.Fatal("the swap duplicated or lost the form or the table")
	}

	// Back: the first filter again, in the address bar, the table and the form.
	b.Do(chromedp.NavigateBack())
	billsWaitFor(b, `location.search === "?account=SPP&state=all" && document.querySelectorAll('[data-testid="bill-row"]').length === 5`)
	if got := portaltest.Get(b, chromedp.Evaluate[string](`document.querySelector("#f-account").value + "|" + document.querySelector("#f-nis").value`)); got != "SPP|" {
		t.Fatalf("form after back: %q", got)
	}
	if b.Count(`nav.sidenav`) != 1 || b.Count(`[data-testid="bills-filters"]`) != 1 {
		t.Fatal("going back lost the page around the table")
	}
	// Tabs follow the table: the paid tab keeps the filter.
	b.Click(`[data-testid="tab-paid"]`)
	billsWaitFor(b, `location.search === "?account=SPP&state=paid" && document.querySelectorAll('[data-testid="bill-row"]').length === 1`)
	if cur := b.Text(`[data-testid="bills-tabs"] [aria-current="page"]`); cur != "Lunas" {
		t.Fatalf("current tab %q", cur)
	}
	b.Screenshot("bills-filtered")
}
