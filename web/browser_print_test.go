package web_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/sekolah/portal/internal/portaltest"
)

var (
	pdfPage     = regexp.MustCompile(`/Type\s*/Page[^s]`)
	pdfMediaBox = regexp.MustCompile(`/MediaBox\s*\[0 0 ([0-9.]+) ([0-9.]+)\]`)
)

// Printed from Chromium, a receipt is one A5 page and a bill letter one A4 page, without
// the navigation, buttons or flash messages.
func TestBrowserPrintedDocuments(t *testing.T) {
	t.Parallel()
	p, s := startCounter(t)
	c := p.SignedIn(t, "finance")
	c.Post("/payments", url.Values{"nis": {"2024001"}, "ref": {"KW-1"}, "component": {s.id("SPP Oktober"), s.id("SPP Desember")}, "total": {"535000"}})
	b := p.NewBrowser(t)
	b.SignIn("finance", portaltest.Password)
	yes := true
	for _, tc := range []struct {
		path string
		w, h float64 // points
	}{
		{"/payments/receipt?nis=2024001&ref=KW-1", 420, 595}, // A5
		{"/students/2024002/letter", 595, 842},               // A4
	} {
		b.Visit(tc.path)
		if strings.HasPrefix(tc.path, "/payments/receipt") {
			// On screen at both sizes, as a reprint (SALINAN).
			for _, size := range []struct{ w, h int64 }{{1366, 768}, {390, 844}} {
				b.Do(chromedp.EmulateViewport(size.w, size.h))
				b.Screenshot(fmt.Sprintf("receipt-copy-%d", size.w))
			}
			b.Do(chromedp.EmulateViewport(1280, 900))
		}
		pdf, err := chromedp.Run(b.Ctx, func(ctx context.Context, tg *chromedp.Target) ([]byte, error) {
			res, err := cdp.Call(ctx, tg, page.PrintToPDF, page.PrintToPDFParams{PreferCSSPageSize: &yes})
			return res.Data, err
		})
		if err != nil {
			t.Fatal(err)
		}
		if n := len(pdfPage.FindAll(pdf, -1)); n != 1 {
			t.Errorf("%s prints on %d pages", tc.path, n)
		}
		m := pdfMediaBox.FindSubmatch(pdf)
		if m == nil || !near(string(m[1]), tc.w) || !near(string(m[2]), tc.h) {
			t.Errorf("%s prints on %q, want %v×%v pt", tc.path, m, tc.w, tc.h)
		}
		if _, err := chromedp.Run(b.Ctx, func(ctx context.Context, tg *chromedp.Target) (cdp.Empty, error) {
			return cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: "print"})
		}); err != nil {
			t.Fatal(err)
		}
		shown := portaltest.Get(b, chromedp.Evaluate[[]string](`[...document.querySelectorAll(".sidenav, .topbar, .btn, #alerts > *")].filter(e => getComputedStyle(e).display !== "none" && e.offsetParent !== null).map(e => e.className)`))
		if len(shown) != 0 {
			t.Errorf("%s prints navigation or buttons: %q", tc.path, shown)
		}
		// The browser did not record this payment: its receipt is a reprint, and the paper
		// says SALINAN above the letterhead, in black.
		if strings.HasPrefix(tc.path, "/payments/receipt") {
			mark := portaltest.Get(b, chromedp.Evaluate[string](`(() => { const m = document.querySelector('[data-testid="receipt-copy"]'); if (!m || m.offsetParent === null) return ""; const r = m.getBoundingClientRect(), h = document.querySelector(".doc-head").getBoundingClientRect(); return r.bottom <= h.top + 1 && getComputedStyle(m).color === "rgb(0, 0, 0)" ? m.innerText : "misplaced: " + m.innerText; })()`))
			if !strings.HasPrefix(mark, "SALINAN") {
				t.Errorf("the reprinted receipt prints its copy mark as %q", mark)
			}
		}
		if dir := os.Getenv("PORTAL_SCREENSHOTS"); dir != "" {
			name := strings.Trim(strings.NewReplacer("/", "-", "?", "-", "&", "-", "=", "-").Replace(tc.path), "-")
			if err := os.WriteFile(filepath.Join(dir, "print-"+name+".pdf"), pdf, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := chromedp.Run(b.Ctx, func(ctx context.Context, tg *chromedp.Target) (cdp.Empty, error) {
			return cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{})
		}); err != nil {
			t.Fatal(err)
		}
	}
}

func near(s string, want float64) bool {
	got, err := strconv.ParseFloat(s, 64)
	return err == nil && got > want-2 && got < want+2
}
