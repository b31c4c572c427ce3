package web_test

import (
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/uploads/sheettest"
)

func TestZZShots(t *testing.T) {
	p := portaltest.Start(t, portaltest.Options{Now: uploadNow})
	sh, err := sheettest.Components(filepath.Join(t.TempDir(), "a.xlsx"), sheettest.Options{Rows: 12, Students: 4, Bad: []int{1}})
	if err != nil {
		t.Fatal(err)
	}
	enrol(t, p, sh, true)
	data, _ := os.ReadFile(sh.Path)
	c := p.SignedIn(t, "finance")
	id := uploadIDFrom(t, postUpload(t, p, c, "components", "a.xlsx", data))
	waitUpload(t, p, id)
	b := p.NewBrowser(t)
	b.Login("finance", portaltest.Password)
	for _, size := range [][2]int64{{1366, 768}, {390, 844}} {
		n := strconv.FormatInt(size[0], 10)
		b.Do(chromedp.EmulateViewport(size[0], size[1]))
		b.Visit("/uploads/" + id)
		b.Screenshot("zz-preview-" + n)
	}
	d, _ := reportsDemoPortal(t)
	b2 := d.NewBrowser(t)
	b2.Login("principal", portaltest.Password)
	_ = url.Values{}
	b2.Visit("/")
	b2.Click(`[data-testid="lang-switch"] button[value="en"]`)
	b2.WaitVisible(`html[lang="en"]`)
	for _, size := range [][2]int64{{1366, 768}, {390, 844}} {
		n := strconv.FormatInt(size[0], 10)
		b2.Do(chromedp.EmulateViewport(size[0], size[1]))
		b2.Visit("/")
		b2.Screenshot("zz-dash-en-" + n)
		b2.Visit("/reports/payments?from=2027-03-01&to=2027-03-15")
		b2.Screenshot("zz-payments-en-" + n)
	}
}
