package web_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/sekolah/portal/internal/config"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/sandbox"
)

// An admin looks at what the payment callbacks did: on the Data page, a forged callback
// and a resend with another body, each beside the service's figures, and a payment
// waiting for the service; on the dashboard, the payment announced but not confirmed,
// which goes once the service answers again, without a reload. On a laptop and a phone
// nothing runs off the page but the figures' table, which scrolls.
func TestBrowserCallbacksAdminsSee(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: billsNow, Sandbox: func(o *sandbox.Options) { o.CallbackURL = "" },
		Config: func(c *config.Config) { c.LiveEvery = time.Second }})
	s := seedBills(t, p)
	forgedOne := bankPaid(t, p, "2024002", s.id("SPP November"))
	deliver(t, p, forgedOne.Signature, forged(t, forgedOne, func(b map[string]any) {
		b["bill_key"], b["bill_name"], b["total_bill_amount"] = "99999999", "Nobody", 275_000
		b["bill_component_list"] = paying(forgedOne.RefNumber, map[string]any{"bill_component_id": s.id("SPP Oktober"), "amount_paid": 275_000})
	}))
	resent := bankPaid(t, p, "2024003", s.id("Study tour"))
	deliver(t, p, resent.Signature, resent.Body)
	deliver(t, p, resent.Signature, forged(t, resent, func(b map[string]any) { b["paid_date"] = "2099-01-01T00:00:00Z" }))
	serviceDown(t, p, true)
	waiting := bankPaid(t, p, "2024001", s.id("SPP Desember"))
	deliver(t, p, waiting.Signature, waiting.Body)

	b := p.NewBrowser(t)
	b.SignIn("admin", portaltest.Password)
	for _, size := range [][2]int64{{1366, 768}, {390, 844}} {
		name := "w" + strconv.FormatInt(size[0], 10)
		b.Do(chromedp.EmulateViewport(size[0], size[1]))
		b.Visit("/settings/data")
		b.WaitVisible(`[data-testid="flagged-callback"]`)
		if n := b.Count(`[data-testid="flagged-callback"]`); n != 2 {
			t.Errorf("%s: %d callbacks listed", name, n)
		}
		b.WaitVisible(`[data-testid="callbacks-waiting"]`)
		if wide := portaltest.Get(b, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`)); wide {
			t.Errorf("%s: the data page runs off the screen", name)
		}
		b.Screenshot("callbacks-data-" + name)
		b.Visit("/")
		b.WaitVisible(`[data-testid="unconfirmed-payments"]`)
		b.Screenshot("callbacks-dashboard-" + name)
	}
	serviceDown(t, p, false)
	// SPP November and the study tour, confirmed before; SPP Desember, now.
	b.WaitText(`[data-testid="card-collected-today"] [data-testid="value"]`, i18n.Rupiah(200_000+500_000+260_000))
	if b.Count(`[data-testid="unconfirmed-payments"]`) != 0 {
		t.Error("the notice stays once the service confirmed the payment")
	}
}
