package web_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/uploads"
	"github.com/sekolah/portal/internal/uploads/sheettest"
)

// download clicks the link sel and returns the file the browser saved.
func download(t *testing.T, b *portaltest.Browser, sel string) []byte {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(b.Ctx, 20*time.Second)
	defer cancel()
	progress := chromedp.Events(ctx, browser.DownloadProgress)
	b.Do(
		chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			// Downloads are allowed in the test's own browser context (tests share one Chromium).
			_, err := chromedp.Call(ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
				Behavior: browser.SetDownloadBehaviorBehaviorAllowAndName, DownloadPath: dir, EventsEnabled: ptrTo(true),
				BrowserContextID: chromedp.FromContext(ctx).BrowserContextID,
			})
			return err
		}),
		chromedp.WaitVisible(chromedp.CSS(sel)),
		chromedp.Click(chromedp.CSS(sel)),
	)
	for ev, err := range progress {
		if err != nil {
			t.Fatalf("download %s: %v", sel, err)
		}
		switch ev.State {
		case browser.DownloadProgressStateCompleted:
			data, err := os.ReadFile(filepath.Join(dir, ev.GUID))
			if err != nil {
				t.Fatal(err)
			}
			return data
		case browser.DownloadProgressStateCanceled:
			t.Fatalf("download %s cancelled", sel)
		}
	}
	t.Fatalf("download %s did not finish", sel)
	return nil
}

func ptrTo[T any](v T) *T { return &v }

// TestBrowserUploadComponents is the finance officer's term-start upload: the template,
// a sheet with three mistakes, their cells named on the preview, the error workbook, and
// the rest sent with the progress bar running to 100%.
func TestBrowserUploadComponents(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: uploadNow, Uploads: func(c *uploads.Config) { c.ChunkSize = 20 }})
	b := p.NewBrowser(t)
	sh, err := sheettest.Components(filepath.Join(t.TempDir(), "tagihan-semester-1.xlsx"),
		sheettest.Options{Rows: 150, Students: 25, Bad: []int{3, 70, 148}})
	if err != nil {
		t.Fatal(err)
	}
	enrol(t, p, sh, true)

	b.SignIn("finance", portaltest.Password)
	b.Visit("/")
	b.Click(`[data-testid="nav-uploads"]`)
	b.WaitVisible(`[data-testid="upload-form"]`)
	b.Screenshot("upload-form")

	tpl := download(t, b, `[data-testid="template-components"]`)
	if rows := readWorkbook(t, tpl, "Tagihan"); len(rows) != 1 || rows[0][0] != "NIS" {
		t.Fatalf("template rows: %q", rows)
	}

	b.SetUploadFiles(`#f-file`, sh.Path)
	b.Click(`[data-testid="upload-submit"]`)
	// The check runs in the background; the page polls until the preview is there.
	b.WaitVisible(`[data-testid="upload-counts"]`)
	if got := b.Text(`[data-testid="count-error"]`); got != "3" {
		t.Fatalf("rows with problems = %q", got)
	}
	if got := b.Text(`[data-testid="count-new"]`); got != "147" {
		t.Fatalf("new rows = %q", got)
	}
	for _, bad := range sh.Bad {
		msg := b.Text(`[data-testid="issue-` + bad.Cell + `"] [data-testid="issue-message"]`)
		if !strings.HasPrefix(msg, "Sel "+bad.Cell+":") {
			t.Errorf("problem of %s reads %q", bad.Cell, msg)
		}
	}
	b.Screenshot("upload-preview")
	// The sample fits a wide window, and on a phone each row is a card with the bill's name
	// on top.
	for _, size := range []struct {
		w, h  int64
		phone bool
	}{{1366, 768, false}, {390, 844, true}} {
		b.Do(chromedp.EmulateViewport(size.w, size.h))
		m := portaltest.Get(b, chromedp.Evaluate[pageFit](measureTables))
		found := false
		for _, tb := range m.Tables {
			if tb.Name != "upload-sample" {
				continue
			}
			found = true
			if tb.Scroll > tb.Client+1 {
				t.Errorf("%d: the sample is %v px wide in a %v px box", size.w, tb.Scroll, tb.Client)
			}
			if size.phone && !tb.Shown {
				t.Errorf("%d: the sample is not shown as cards", size.w)
			}
		}
		if !found {
			t.Fatalf("%d: no sample table among %+v", size.w, m.Tables)
		}
		b.Screenshot(fmt.Sprintf("upload-preview-%d", size.w))
	}
	b.Do(chromedp.EmulateViewport(1280, 900))
	// With JavaScript too, nothing on the page still says the file is being checked.
	if body := b.Text("body"); strings.Contains(body, "sedang diperiksa") {
		t.Errorf("the preview still says the file is being checked:\n%s", body)
	}
	if n := b.Count(`[data-testid="upload-sample"] tbody tr`); n != uploads.SampleSize {
		t.Errorf("the preview's sample has %d rows", n)
	}

	book := download(t, b, `[data-testid="upload-errbook"]`)
	rows := readWorkbook(t, book, "Tagihan")
	if len(rows) != 4 {
		t.Fatalf("error workbook has %d rows, want the header and 3", len(rows))
	}
	for i, bad := range sh.Bad {
		if !strings.Contains(rows[i+1][len(rows[i+1])-1], bad.Cell) {
			t.Errorf("error workbook row %d = %q, want %s named", i+1, rows[i+1], bad.Cell)
		}
	}

	// Sending asks first with a page of the portal's own (no browser pop-up), at both sizes.
	b.Click(`[data-testid="upload-commit"]`)
	b.WaitVisible(`[data-testid="confirm-step"]`)
	if got := b.Text(`[data-testid="confirm-question"]`); !strings.HasPrefix(got, "Kirim ") || !strings.HasSuffix(got, " ke layanan pembayaran?") {
		t.Errorf("the confirmation asks %q", got)
	}
	for _, size := range []struct{ w, h int64 }{{1366, 768}, {390, 844}} {
		b.Do(chromedp.EmulateViewport(size.w, size.h))
		if fits := portaltest.Get(b, chromedp.Evaluate[bool](`document.documentElement.scrollWidth <= window.innerWidth && (() => { const r = document.querySelector('[data-testid="confirm-yes"]').getBoundingClientRect(); return r.right <= window.innerWidth && r.width > 0; })()`)); !fits {
			t.Errorf("%d: the confirmation page does not fit, or its button is off screen", size.w)
		}
		b.Screenshot(fmt.Sprintf("upload-commit-confirm-%d", size.w))
	}
	b.Do(chromedp.EmulateViewport(1280, 900))
	b.Click(`[data-testid="confirm-yes"]`)
	b.WaitVisible(`[data-testid="upload-progress"]`)
	b.Do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="upload-status"][data-state="done"]`)))
	if got := b.Text(`[data-testid="progress-percent"]`); got != "100%" {
		t.Fatalf("progress = %q", got)
	}
	full := portaltest.Get(b, chromedp.Evaluate[bool](`(() => { const p = document.querySelector('[data-testid="progress-bar"]'); return p.value === p.max && p.max === 147; })()`))
	if !full {
		t.Fatal("the progress bar is not full")
	}
	if got := b.Text(`[data-testid="summary-created"]`); got != "147" {
		t.Fatalf("created = %q", got)
	}
	b.Screenshot("upload-done")
	for _, stale := range []string{"boleh meninggalkan halaman", "Memeriksa sekali lagi", "sedang diperiksa"} {
		if body := b.Text("body"); strings.Contains(body, stale) {
			t.Errorf("the finished upload's page still says %q", stale)
		}
	}
	if n := countComponents(t, p); n != 147 {
		t.Fatalf("the service has %d components, want 147", n)
	}

	// The history shows it, with its hash.
	b.Click(`[data-testid="nav-uploads"]`)
	b.Click(`[data-testid="uploads-history-link"]`)
	if row := b.Text(`[data-testid="uploads-table"] tbody tr`); !strings.Contains(row, "tagihan-semester-1.xlsx") || !strings.Contains(row, "Selesai") {
		t.Fatalf("history row = %q", row)
	}
	b.Screenshot("upload-history")
}
