package web_test

import (
	"context"
	"image"
	"image/png"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/sekolah/portal/internal/portaltest"
)

// A class's bill letters print from Chromium on A4, one student per page: the PDF has as
// many pages as letters, and the first page, rendered by pdftoppm, is a letter (ink at
// its head where the letterhead is, a white margin around).
func TestBrowserClassLettersPrintOnePerPage(t *testing.T) {
	t.Parallel()
	p := startLetters(t)
	b := p.NewBrowser(t)
	b.SignIn("finance", portaltest.Password)
	b.Visit("/students/letters?class=" + url.QueryEscape("Kelas 7A"))
	letters := b.Count(`[data-testid="letter-set"] [data-testid="letter"]`)
	if letters != 2 {
		t.Fatalf("%d letters on the page", letters)
	}
	b.Screenshot("letters-class")
	yes := true
	pdf, err := chromedp.Run(b.Ctx, func(ctx context.Context, tg *chromedp.Target) ([]byte, error) {
		res, err := cdp.Call(ctx, tg, page.PrintToPDF, page.PrintToPDFParams{PreferCSSPageSize: &yes})
		return res.Data, err
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(pdfPage.FindAll(pdf, -1)); n != letters {
		t.Errorf("%d letters print on %d pages", letters, n)
	}
	if m := pdfMediaBox.FindSubmatch(pdf); m == nil || !near(string(m[1]), 595) || !near(string(m[2]), 842) {
		t.Errorf("pages of %q, want A4 (595×842 pt)", m)
	}

	pdftoppm, err := exec.LookPath("pdftoppm")
	if err != nil {
		if os.Getenv("PORTAL_REQUIRE_BROWSER") != "" {
			t.Fatal("pdftoppm (poppler-utils) is needed to look at the printed page")
		}
		t.Skip("no pdftoppm")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "letters.pdf"), pdf, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(pdftoppm, "-png", "-r", "60", "-f", "1", "-l", "2", filepath.Join(dir, "letters.pdf"), filepath.Join(dir, "page")).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v\n%s", err, out)
	}
	for i, name := range []string{"page-1.png", "page-2.png"} {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("page %d not rendered: %v", i+1, err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		bounds := img.Bounds()
		if w, h := bounds.Dx(), bounds.Dy(); h*1000/w < 1380 || h*1000/w > 1450 {
			t.Errorf("page %d is %d×%d, not A4's proportions", i+1, w, h)
		}
		// The letterhead is printed at the top of each page, inside the margins.
		top := image.Rect(bounds.Min.X, bounds.Min.Y+bounds.Dy()*3/100, bounds.Max.X, bounds.Min.Y+bounds.Dy()/6)
		margin := image.Rect(bounds.Min.X, bounds.Min.Y, bounds.Max.X, bounds.Min.Y+bounds.Dy()/100)
		if ink(img, top) < 200 {
			t.Errorf("page %d has no letterhead (%d dark pixels at its head)", i+1, ink(img, top))
		}
		if ink(img, margin) > 0 {
			t.Errorf("page %d prints in its top margin", i+1)
		}
		if dir, _ := portaltest.ScreenshotDir(); dir != "" {
			data, _ := os.ReadFile(filepath.Join(filepath.Dir(f.Name()), name))
			_ = os.WriteFile(filepath.Join(dir, "letters-pdf-"+name), data, 0o644)
		}
	}
}

// ink counts the dark pixels of img in r.
func ink(img image.Image, r image.Rectangle) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			if (cr+cg+cb)/3 < 0x8000 {
				n++
			}
		}
	}
	return n
}
