package web_test

import (
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/sekolah/portal/internal/portaltest"
)

// The review's total follows the ticks at once, on a laptop and on a phone, and what is
// registered is the total the page showed.
func TestBrowserRegistrationLiveTotal(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: regNow})
	tpl := createTemplate(t, p, p.SignedIn(t, "admin"), "Pendaftaran SMP 2027")
	b := p.NewBrowser(t)
	b.SignIn("finance", portaltest.Password)
	seragam, buku := tpl.Lines[1].ID, tpl.Lines[2].ID
	for i, size := range [][2]int64{{1366, 768}, {390, 844}} {
		name := "w" + strconv.FormatInt(size[0], 10)
		nis := "202705" + strconv.Itoa(i)
		b.Do(chromedp.EmulateViewport(size[0], size[1]))
		b.Visit("/registrations/new")
		b.Type(`#f-nis`, nis)
		b.Type(`#f-name`, "Rina Wulandari")
		b.Do(chromedp.SetValue(chromedp.CSS(`#f-template`), tpl.ID))
		b.Click(`[data-testid="wizard-next"]`)
		b.WaitVisible(`#registration-wizard[data-step="2"]`)
		b.WaitText(`[data-testid="review-total"]`, "Rp\u00a06.150.000")
		if b.Count(`[data-testid="wizard-recalc"]:not([hidden])`) > 0 && portaltest.Get(b, chromedp.Evaluate[bool](
			`getComputedStyle(document.querySelector('[data-testid="wizard-recalc"]')).display !== "none"`)) {
			t.Errorf("%s: the Recalculate button shows although the total follows the ticks", name)
		}
		b.Click(`input[name="include"][value="` + seragam + `"]`)
		b.WaitText(`[data-testid="review-total"]`, "Rp\u00a05.400.000")
		b.Click(`input[name="include"][value="` + buku + `"]`)
		b.WaitText(`[data-testid="review-total"]`, "Rp\u00a05.000.000")
		b.Click(`input[name="include"][value="` + buku + `"]`)
		b.WaitText(`[data-testid="review-total"]`, "Rp\u00a05.400.000")
		if got := portaltest.Get(b, chromedp.Value(chromedp.CSS(`[data-testid="shown-total"]`))); got != "5400000" {
			t.Errorf("%s: the total sent with the confirmation is %q", name, got)
		}
		b.Screenshot("registration-live-total-" + name)
		b.Click(`[data-testid="wizard-confirm"]`)
		b.WaitText(`[data-testid="registered-total"]`, "Rp\u00a05.400.000")
		b.Screenshot("registration-summary-" + name)
	}
}
