package web_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/sekolah/portal/internal/portaltest"
)

// docsScreenshots is where the README's screenshots live, from the web package's directory.
const docsScreenshots = "../docs/screenshots"

// TestDocsScreenshots renews the README's screenshots of the demo school: the dashboard,
// the counter with a student chosen, a receipt and the bills list, at 1366×768 and
// 390×844 (what the window shows, not the whole page). Only with PORTAL_SCREENSHOTS=docs:
// the files are committed, so other runs leave them alone.
func TestDocsScreenshots(t *testing.T) {
	if os.Getenv("PORTAL_SCREENSHOTS") != portaltest.ScreenshotsDocs {
		t.Skip("PORTAL_SCREENSHOTS=docs renews docs/screenshots")
	}
	t.Parallel()
	p, _ := reportsDemoPortal(t)
	b := p.NewBrowser(t)
	b.SignIn("finance", portaltest.Password)
	paths := map[string]string{}
	for _, pg := range tablesPages(t, p) {
		paths[pg.name] = pg.path
	}
	if err := os.MkdirAll(docsScreenshots, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, size := range []struct {
		w, h int64
		tag  string
	}{{1366, 768, "1366"}, {390, 844, "390"}} {
		b.Do(chromedp.EmulateViewport(size.w, size.h))
		for _, name := range []string{"dashboard", "counter", "receipt", "bills"} {
			b.Visit(paths[name])
			png := portaltest.Get(b, chromedp.CaptureScreenshot())
			file := filepath.Join(docsScreenshots, name+"-"+size.tag+".png")
			if err := os.WriteFile(file, png, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d KB", file, len(png)/1024)
		}
	}
}
