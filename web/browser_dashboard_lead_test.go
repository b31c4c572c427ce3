package web_test

import (
	"slices"
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/sekolah/portal/internal/portaltest"
)

// The principal's ten seconds: on a laptop and on a phone the three lead figures come
// first, before every other card, and no amount wraps "Rp" away from its number.
func TestBrowserDashboardLead(t *testing.T) {
	t.Parallel()
	p, _ := reportsDemoPortal(t)
	b := p.NewBrowser(t)
	b.SignIn("principal", portaltest.Password)
	for _, size := range [][2]int64{{1366, 768}, {390, 844}} {
		name := "w" + strconv.FormatInt(size[0], 10)
		b.Do(chromedp.EmulateViewport(size[0], size[1]))
		b.Visit("/")
		b.WaitVisible(`[data-testid="lead"] [data-testid="card-arrears"]`)
		got := portaltest.Get(b, chromedp.Evaluate[leadLayout](`(() => {
			const cards = [...document.querySelectorAll('#dashboard a.stat')];
			const wrapped = [...document.querySelectorAll('#dashboard .stat-value')].filter(v => {
				const lh = parseFloat(getComputedStyle(v).lineHeight);
				return v.getBoundingClientRect().height > lh * 1.5;
			}).map(v => v.textContent);
			return {order: cards.slice(0, 3).map(c => c.dataset.testid), wrapped,
				leadTop: document.querySelector('[data-testid="lead"]').getBoundingClientRect().top};
		})()`))
		if want := []string{"card-arrears", "card-rate", "card-collected-month"}; !slices.Equal(got.Order, want) {
			t.Errorf("%s: the dashboard starts with %v, want %v", name, got.Order, want)
		}
		if len(got.Wrapped) > 0 {
			t.Errorf("%s: amounts wrap: %q", name, got.Wrapped)
		}
		if got.LeadTop > float64(size[1]) {
			t.Errorf("%s: the lead figures start below the first screen (%.0f px)", name, got.LeadTop)
		}
		b.Screenshot("dashboard-lead-" + name)
	}
}

// leadLayout is where the dashboard's figures stand in the browser.
type leadLayout struct {
	Order   []string `json:"order"`
	Wrapped []string `json:"wrapped"`
	LeadTop float64  `json:"leadTop"`
}
