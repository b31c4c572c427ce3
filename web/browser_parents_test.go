package web_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/portaltest"
)

// A parent on a phone (390×844) opens the link from a message: sees what is unpaid and
// what it costs today, the payment made and its receipt, reads it in English, and a
// wrong or a renewed link is a plain "not found".
func TestBrowserParentPageOnAPhone(t *testing.T) {
	t.Parallel()
	p := startLetters(t)
	ctx := t.Context()
	books, err := p.Billing.CreateComponents(ctx, []billing.ComponentInput{{NIS: "3001", AccountCode: "SPP", Name: "Buku paket",
		Due: billDay("2026-11-15"), Expiry: billDay("2026-12-31"), Amount: 150_000}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Billing.Pay(ctx, billing.Payment{NIS: "3001", RefNumber: "BANK-4455", ComponentIDs: []string{books[0].ComponentID}}); err != nil {
		t.Fatal(err)
	}
	p.SyncLedger(t)
	staff := p.SignedIn(t, "finance")
	link := staff.Get("/students/3001").Doc.Find(`[data-testid="parents-link"]`).AttrOr("value", "")

	b := p.NewBrowser(t)
	b.Do(chromedp.EmulateViewport(390, 844))
	b.Visit(link)
	b.WaitVisible(`[data-testid="parent-unpaid"]`)
	if got := b.Text(`[data-testid="parent-line-price"]`); got != "Rp\u00a0330.000" {
		t.Errorf("today's price %q", got)
	}
	if got := b.Text(`[data-testid="parent-total"]`); !strings.Contains(got, "330.000") {
		t.Errorf("total %q", got)
	}
	if got := b.Text(`[data-testid="parent-line-late"]`); !strings.Contains(got, "12 hari") {
		t.Errorf("lateness %q", got)
	}
	// Phone-first: nothing wider than the screen, the NIS to pay with on the first screens.
	layout := portaltest.Get(b, chromedp.Evaluate[[]float64](`[document.documentElement.scrollWidth, window.innerWidth,
		document.querySelector('[data-testid="parent-pay-nis"]').getBoundingClientRect().top]`))
	if layout[0] > layout[1] {
		t.Errorf("the page is %v px wide on a %v px screen", layout[0], layout[1])
	}
	if layout[2] > 2*844 {
		t.Errorf("the NIS to pay with is %v px down", layout[2])
	}
	b.Screenshot("parent-page-390")

	// The receipt of the payment made.
	b.Click(`[data-testid="parent-receipt-link"]`)
	b.WaitVisible(`[data-testid="parent-receipt"]`)
	if got := b.Text(`[data-testid="parent-receipt-ref"]`); got != "BANK-4455" {
		t.Errorf("receipt ref %q", got)
	}
	if got := b.Text(`[data-testid="parent-receipt-total"]`); !strings.Contains(got, "150.000") {
		t.Errorf("receipt total %q", got)
	}
	b.Screenshot("parent-receipt-390")
	// Printed by the parent: one A5 page, marked SALINAN.
	yes := true
	pdf, err := chromedp.Run(b.Ctx, func(ctx context.Context, tg *chromedp.Target) ([]byte, error) {
		res, err := cdp.Call(ctx, tg, page.PrintToPDF, page.PrintToPDFParams{PreferCSSPageSize: &yes})
		return res.Data, err
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(pdfPage.FindAll(pdf, -1)); n != 1 {
		t.Errorf("the parent's receipt prints on %d pages", n)
	}
	if dir := os.Getenv("PORTAL_SCREENSHOTS"); dir != "" {
		if err := os.WriteFile(filepath.Join(dir, "print-parent-receipt.pdf"), pdf, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// In English, from the language switch, and back on the same page.
	b.Visit(link)
	b.Click(`[data-testid="lang-en"]`)
	b.WaitText(`[data-testid="parent-unpaid"] h2`, "Not yet paid")
	if loc := b.Location(); !strings.HasSuffix(loc, link) {
		t.Errorf("after the language switch at %q", loc)
	}
	if got := b.Text(`[data-testid="parent-total"]`); !strings.Contains(got, "Total if paid today") {
		t.Errorf("English total %q", got)
	}
	b.Screenshot("parent-page-390-en")

	// A wrong link, and the old one after staff renewed it: "not found", nothing of Ani.
	b.Visit("/p/" + strings.Repeat("x", 32))
	b.WaitVisible(`[data-testid="parent-missing"]`)
	staff.Post("/students/3001/parent-link", confirmYes())
	b.Visit(link)
	b.WaitVisible(`[data-testid="parent-missing"]`)
	if b.Count(`[data-testid="parent-student"]`) != 0 || strings.Contains(b.Text("body"), "Ani") {
		t.Error("the renewed link still shows the student")
	}
	b.Screenshot("parent-missing-390")
}
