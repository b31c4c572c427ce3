package web_test

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/sekolah/portal/internal/portaltest"
)

// A cashier closes the day in Chromium, without a page load between the refusal and the
// sign-off (HTMX): a difference without its reason is refused beside the field, with the
// cash typed kept; with the reason the cash is locked. Its berita acara prints on one A4
// page without the navigation or buttons. The page fits 390 px with nothing wider than
// the window, for the cashier and for an admin (who sees the reopening). Looked at at
// 1366×768 and 390×844 (PORTAL_SCREENSHOTS, where the berita acara is saved as a PDF too).
func TestBrowserClosing(t *testing.T) {
	t.Parallel()
	p, s := startClosing(t, false)
	fin, siti := p.SignedIn(t, "finance"), p.SignedIn(t, "siti")
	for _, pay := range []struct {
		c             *portaltest.Client
		nis, ref, tot string
		comps         []string
	}{
		{fin, "2024001", "KW-1", "535000", []string{s.id("SPP Oktober"), s.id("SPP Desember")}},
		{siti, "2024002", "KW-2", "200000", []string{s.id("SPP November")}},
		{siti, "2024003", "KW-3", "500000", []string{s.id("Study tour")}},
	} {
		if res := pay.c.Post("/payments", url.Values{"nis": {pay.nis}, "ref": {pay.ref}, "component": pay.comps, "total": {pay.tot}}); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("payment %s: %d %s", pay.ref, res.StatusCode, billsText(res.Doc.Find("main")))
		}
	}

	b := p.NewBrowser(t)
	shoot := func(name string) {
		for _, sz := range []struct {
			name string
			w, h int64
		}{{"1366", 1366, 768}, {"390", 390, 844}} {
			b.Do(chromedp.EmulateViewport(sz.w, sz.h))
			// Nothing of the page is wider than the window.
			if wide := portaltest.Get(b, chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); wide > int(sz.w) {
				t.Errorf("%s at %d px: the page is %d px wide", name, sz.w, wide)
			}
			b.Screenshot(name + "-" + sz.name)
		}
		b.Do(chromedp.EmulateViewport(1366, 768))
	}

	b.SignIn("siti", portaltest.Password)
	b.Visit("/closing")
	b.WaitVisible(`[data-testid="closing-form"]`)
	nbsp := strings.NewReplacer("\u00a0", " ")
	if got := nbsp.Replace(b.Text(`[data-testid="closing-mine-expected"]`)); got != "Rp 700.000" {
		t.Errorf("Siti's expected %q", got)
	}
	shoot("closing-open")

	b.Type(`#f-counted`, "695.000")
	b.Click(`[data-testid="closing-sign"]`)
	b.WaitVisible(`[data-testid="error-reason"]`)
	if got := nbsp.Replace(b.Text(`[data-testid="error-reason"]`)); !strings.Contains(got, "Rp 5.000") {
		t.Errorf("the reason's error %q", got)
	}
	if got := portaltest.Get(b, chromedp.Evaluate[string](`document.querySelector("#f-counted").value`)); got != "695.000" {
		t.Errorf("the cash typed became %q", got)
	}
	shoot("closing-refused")

	b.Do(chromedp.SendKeys(chromedp.CSS(`#f-reason`), "uang kembalian kurang"))
	b.Click(`[data-testid="closing-sign"]`)
	b.WaitVisible(`[data-testid="closing-mine-locked"]`)
	if got := nbsp.Replace(b.Text(`[data-testid="closing-row"][data-cashier="siti"] [data-testid="closing-difference"]`)); !strings.Contains(got, "kurang Rp 5.000") {
		t.Errorf("Siti's difference %q", got)
	}
	shoot("closing-locked")

	b.Click(`[data-testid="closing-mine-print"]`)
	b.WaitVisible(`[data-testid="closing-doc"]`)
	shoot("closing-print")
	yes := true
	pdf, err := chromedp.Run(b.Ctx, func(ctx context.Context, tg *chromedp.Target) ([]byte, error) {
		res, err := cdp.Call(ctx, tg, page.PrintToPDF, page.PrintToPDFParams{PreferCSSPageSize: &yes})
		return res.Data, err
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(pdfPage.FindAll(pdf, -1)); n != 1 {
		t.Errorf("the berita acara prints on %d pages", n)
	}
	if m := pdfMediaBox.FindSubmatch(pdf); m == nil || !near(string(m[1]), 595) || !near(string(m[2]), 842) {
		t.Errorf("the berita acara prints on %q, want A4", m)
	}
	if dir, _ := portaltest.ScreenshotDir(); dir != "" {
		_ = os.WriteFile(filepath.Join(dir, "closing-print.pdf"), pdf, 0o644)
	}
	if _, err := chromedp.Run(b.Ctx, func(ctx context.Context, tg *chromedp.Target) (cdp.Empty, error) {
		return cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: "print"})
	}); err != nil {
		t.Fatal(err)
	}
	shown := portaltest.Get(b, chromedp.Evaluate[[]string](`[...document.querySelectorAll(".sidenav, .topbar, .btn, #alerts > *")].filter(e => getComputedStyle(e).display !== "none" && e.offsetParent !== null).map(e => e.className)`))
	if len(shown) != 0 {
		t.Errorf("the berita acara prints navigation or buttons: %q", shown)
	}
	if _, err := chromedp.Run(b.Ctx, func(ctx context.Context, tg *chromedp.Target) (cdp.Empty, error) {
		return cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{})
	}); err != nil {
		t.Fatal(err)
	}

	// Where the day's receipts came from, on the dashboard and the payments report (looked
	// at only: their width is the dashboard's own matter).
	for name, path := range map[string]string{"channels-dashboard": "/", "channels-payments": "/reports/payments?from=2026-11-22&to=2026-11-22"} {
		b.Visit(path)
		b.WaitVisible(`[data-testid="dashboard-channels"], [data-testid="payments-channels"]`)
		for _, sz := range []struct {
			name string
			w, h int64
		}{{"1366", 1366, 768}, {"390", 390, 844}} {
			b.Do(chromedp.EmulateViewport(sz.w, sz.h))
			b.Screenshot(name + "-" + sz.name)
		}
		b.Do(chromedp.EmulateViewport(1366, 768))
	}

	// The admin's page: both cashiers, Siti's closing with its reopening.
	a := p.NewBrowser(t)
	a.SignIn("admin", portaltest.Password)
	a.Visit("/closing")
	// The admin took no counter payment: their own sign-off is folded away, not the first
	// thing on the page.
	if a.Count(`[data-testid="closing-mine-empty"]:not([open])`) != 1 || a.Count(`[data-testid="closing-mine-none"]`) != 1 {
		t.Error("the admin's empty cash is not folded")
	}
	a.Click(`[data-testid="closing-drawer"][data-cashier="siti"] [data-testid="closing-reopen"] summary`)
	a.WaitVisible(`[data-testid="closing-reopen-submit"]`)
	b = a
	shoot("closing-admin")
}
