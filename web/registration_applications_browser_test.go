package web_test

import (
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/registration"
)

// TestBrowserPublicApplications is the flow a parent and a bursar go through: the parent
// fills the public form and reads the thank-you page; the school's cap is 0, so the
// application waits; finance opens Online applicants, approves one and rejects another
// with a reason. The pages are looked at at 1366×768 and 390×844 (PORTAL_SCREENSHOTS).
func TestBrowserPublicApplications(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: regNow})
	admin := p.SignedIn(t, "admin")
	tpl := createTemplate(t, p, admin, "Pendaftaran SMP 2027")
	admin.Post("/settings/registration", url.Values{"enabled": {"1"}, "template": {tpl.ID}, "class": {"Calon Siswa SMP"}, "hourly_cap": {"0"}})

	b := p.NewBrowser(t)
	sizes := []struct {
		name string
		w, h int64
	}{{"1366", 1366, 768}, {"390", 390, 844}}
	shoot := func(name string) {
		for _, s := range sizes {
			b.Do(chromedp.EmulateViewport(s.w, s.h))
			b.Screenshot(name + "-" + s.name)
		}
		b.Do(chromedp.EmulateViewport(1366, 768))
	}

	// Two parents send the form.
	for i := range 2 {
		b.Visit("/register")
		b.Type(`#f-name`, "Dewi Anggraini "+strconv.Itoa(i+1))
		b.Type(`#f-contact_name`, "Ibu Sari")
		b.Type(`#f-phone`, "0813 1111 2222")
		if i == 0 {
			shoot("public-form")
		}
		b.Click(`[data-testid="public-submit"]`)
		b.WaitVisible(`[data-testid="public-thanks"]`)
		if ref := b.Text(`[data-testid="public-reference"]`); ref != regNumber(i+1) {
			t.Fatalf("reference %q, want %q", ref, regNumber(i+1))
		}
		if i == 0 {
			shoot("public-thanks")
		}
	}
	apps := settleApplications(t, p)
	if len(apps) != 2 || apps[0].Hold != registration.HoldReview {
		t.Fatalf("applications: %+v", apps)
	}

	// Finance decides.
	b.SignIn("finance", portaltest.Password)
	b.Visit("/")
	b.Click(`[data-testid="nav-applications"]`)
	b.WaitVisible(`[data-testid="applications-waiting"]`)
	if n := b.Count(`[data-testid="application"]`); n != 2 {
		t.Fatalf("%d applications listed", n)
	}
	shoot("applications")
	b.Click(`[data-ref="` + apps[0].Reference + `"] [data-testid="application-approve"]`)
	b.WaitVisible(`[data-testid="application-decided"]`)
	if n := b.Count(`[data-testid="application"]`); n != 1 {
		t.Fatalf("%d still waiting after the approval", n)
	}
	b.Click(`[data-ref="` + apps[1].Reference + `"] [data-testid="application-reject"] summary`)
	b.Type(`#f-reason-`+apps[1].ID, "Dobel: sudah mendaftar lewat sekolah")
	b.Click(`[data-ref="` + apps[1].Reference + `"] [data-testid="application-reject-submit"]`)
	b.WaitVisible(`[data-testid="applications-empty"]`)
	shoot("applications-decided")
	if got := b.Text(`[data-testid="applications-recent"]`); !strings.Contains(got, "Terdaftar") || !strings.Contains(got, "Dobel") {
		t.Fatalf("decided: %q", got)
	}
	if _, err := p.Billing.Student(t.Context(), regNumber(1)); err != nil {
		t.Fatalf("the approved student is not at the service: %v", err)
	}

	// The settings page with its cap, as an admin sees it.
	b.SignIn("admin", portaltest.Password)
	b.Visit("/settings/registration")
	b.WaitVisible(`#f-hourly_cap`)
	shoot("registration-settings")
}
