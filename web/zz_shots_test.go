package web_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/sekolah/portal/internal/config"
	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/sandbox"
)

func TestZZShots(t *testing.T) {
	if os.Getenv("SHOTS") == "" {
		t.Skip()
	}
	p := portaltest.Start(t, portaltest.Options{Now: reportsNow, Demo: true, Config: func(c *config.Config) { c.LiveEvery = 2 * time.Second }})
	// a couple of bank payments so the data page has callbacks
	for _, r := range []string{} {
		_ = r
	}
	b := p.NewBrowser(t)
	b.Login("admin", portaltest.Password)
	pages := []struct{ name, path string }{
		{"dashboard", "/"},
		{"bills", "/bills"},
		{"bills-search", "/bills?state=all&q=putri&sort=-amount"},
		{"bills-upcoming", "/bills/upcoming"},
		{"report-payments", "/reports/payments"},
		{"report-outstanding", "/reports/outstanding"},
		{"report-statement", "/reports/statement?nis=" + os.Getenv("SHOT_NIS")},
		{"report-accounts", "/reports/accounts"},
		{"students", "/students"},
		{"student", "/students/" + os.Getenv("SHOT_NIS")},
		{"student-statement", "/students/" + os.Getenv("SHOT_NIS") + "/statement"},
		{"settings-data", "/settings/data"},
	}
	shoot := func(prefix string) {
		for _, v := range []struct {
			name string
			w, h int64
		}{{"1366", 1366, 768}, {"390", 390, 844}} {
			b.Do(chromedp.EmulateViewport(v.w, v.h))
			for _, pg := range pages {
				b.Visit(pg.path)
				time.Sleep(200 * time.Millisecond)
				png := portaltest.Get(b, chromedp.FullScreenshot(80))
				_ = os.WriteFile("/tmp/shots/"+prefix+pg.name+"-"+v.name+".png", png, 0o644)
				png = portaltest.Get(b, chromedp.CaptureScreenshot())
				_ = os.WriteFile("/tmp/shots/"+prefix+pg.name+"-"+v.name+"-view.png", png, 0o644)
			}
		}
	}
	shoot("")
	// The service down for 40 minutes: the stale warnings.
	p.Sandbox.SetFaults(sandbox.Faults{ErrorRate: 1, Status: 503})
	p.SetNow(reportsNow.Add(42 * time.Minute))
	_, _ = p.App.Sync.RunIncremental(t.Context())
	pages = pages[:2]
	pages = append(pages, struct{ name, path string }{"settings-data", "/settings/data"}, struct{ name, path string }{"students", "/students"})
	shoot("down-")
	_ = strings.TrimSpace
}
