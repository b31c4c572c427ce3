package web_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/sekolah/portal/internal/portaltest"
)

func TestBrowserSignInWrongPasswordAndSignOut(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{})
	b := p.NewBrowser(t)

	b.Login("admin", "not-the-password")
	if msg := b.Text(`[data-testid="login-error"]`); !strings.Contains(msg, "Nama pengguna atau kata sandi salah") {
		t.Fatalf("wrong password message = %q", msg)
	}
	b.Login("admin", portaltest.Password)
	if name := b.Text(`[data-testid="user-name"]`); name != "Admin Staf" {
		t.Fatalf("signed in as %q", name)
	}
	if banner := b.Text(`[data-testid="env-banner"]`); !strings.Contains(banner, "SANDBOX") {
		t.Fatalf("banner = %q", banner)
	}
	b.Screenshot("home-admin")
	b.Click(`[data-testid="sign-out"]`)
	b.WaitVisible(`[data-testid="login-form"]`)
	if msg := b.Text(`[data-testid="flash"]`); !strings.Contains(msg, "keluar") {
		t.Fatalf("sign-out message = %q", msg)
	}
	b.Visit("/staff")
	if loc := b.Location(); !strings.HasPrefix(loc, "/login") {
		t.Fatalf("after sign-out /staff shows %s", loc)
	}
}

func TestBrowserLockOut(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{})
	b := p.NewBrowser(t)
	for range 5 {
		b.Login("finance", "wrong-wrong-wrong")
	}
	b.Login("finance", portaltest.Password)
	msg := b.Text(`[data-testid="login-error"]`)
	if !strings.Contains(msg, "dikunci") || !strings.Contains(msg, "menit") {
		t.Fatalf("lock-out message = %q", msg)
	}
	b.Screenshot("login-locked")
}

func TestBrowserPrincipalIsReadOnly(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{})
	b := p.NewBrowser(t)
	b.Login("principal", portaltest.Password)
	if role := b.Text(`[data-testid="user-role"]`); role != "Kepala Sekolah" {
		t.Fatalf("role shown = %q", role)
	}
	if n := b.Count(`[data-testid="nav-staff"], [data-testid="nav-audit"], form[action="/staff"]`); n != 0 {
		t.Fatalf("principal sees %d admin controls", n)
	}
	// A forged POST with a valid CSRF token, sent from the principal's own page, is refused.
	status := portaltest.Get(b, chromedp.Evaluate[int](`fetch("/staff", {method: "POST",
		headers: {"Content-Type": "application/x-www-form-urlencoded",
		          "X-CSRF-Token": document.querySelector('meta[name="csrf-token"]').content},
		body: "username=mallory&display_name=Mallory&role=admin&password=long-enough-pass"}).then(r => r.status)`,
		chromedp.EvalAwaitPromise))
	if status != 403 {
		t.Fatalf("forged POST status = %d, want 403", status)
	}
	if _, err := p.DB.UserByUsername(t.Context(), "mallory"); err == nil {
		t.Fatal("the forged POST created an account")
	}
}

func TestBrowserAdminCreatesStaffAndReadsAudit(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{})
	b := p.NewBrowser(t)
	b.Login("admin", portaltest.Password)
	b.Click(`[data-testid="nav-staff"]`)

	// A mistake first: the form keeps what was typed and says what is wrong.
	b.Type(`#f-username`, "Dewi Lestari")
	b.Type(`#f-display_name`, "Dewi Lestari")
	b.Click(`[data-testid="staff-create"]`)
	if msg := b.Text(`[data-testid="error-username"]`); msg == "" {
		t.Fatal("no username error shown")
	}
	if v := portaltest.Get(b, chromedp.Value(chromedp.CSS(`#f-display_name`))); v != "Dewi Lestari" {
		t.Fatalf("display name lost: %q", v)
	}
	b.Type(`#f-username`, "dewi")
	b.Click(`[data-testid="staff-create"]`)
	b.WaitVisible(`[data-testid="staff-dewi"]`)

	b.Type(`#f-username`, "pak.harto")
	b.Type(`#f-display_name`, "Pak Harto")
	b.Do(chromedp.SetValue(chromedp.CSS(`#f-role`), "principal"))
	b.Click(`[data-testid="staff-create"]`)
	b.WaitVisible(`[data-testid="staff-pak.harto"]`)
	b.Screenshot("staff")

	b.Click(`[data-testid="nav-audit"]`)
	table := b.Text(`[data-testid="audit-table"]`)
	for _, want := range []string{"Akun staf dibuat — Dewi Lestari, Keuangan", "Akun staf dibuat — Pak Harto, Kepala Sekolah", "Masuk ke portal", "Admin Staf"} {
		if !strings.Contains(table, want) {
			t.Errorf("audit log lacks %q:\n%s", want, table)
		}
	}
	b.Screenshot("audit")
}

func TestBrowserLanguageSwitch(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{})
	b := p.NewBrowser(t)
	b.Visit("/login")
	b.Click(`[data-testid="lang-en"]`)
	b.WaitText(`[data-testid="sign-in"]`, "Sign in")
	b.Login("finance", portaltest.Password)
	b.WaitText(`[data-testid="sign-out"]`, "Sign out")
	b.Click(`[data-testid="lang-id"]`)
	b.WaitText(`[data-testid="sign-out"]`, "Keluar")
}
