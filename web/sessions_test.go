package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/store"
)

// copyCookies returns a fresh client holding c's cookies as they are now: what an
// attacker who copied the cookie can replay later, whatever c does meanwhile.
func copyCookies(t *testing.T, p *portaltest.Portal, c *portaltest.Client) *portaltest.Client {
	t.Helper()
	u, _ := url.Parse(p.URL)
	d := p.NewClient(t)
	d.HTTP.Jar.SetCookies(u, c.HTTP.Jar.Cookies(u))
	d.CSRF = c.CSRF
	return d
}

// signedOut reports whether c is sent to sign in when it asks for the dashboard.
func signedOut(t *testing.T, c *portaltest.Client) bool {
	t.Helper()
	res := c.Get("/")
	switch {
	case res.StatusCode == http.StatusSeeOther && strings.HasPrefix(res.Header.Get("Location"), "/login"):
		return true
	case res.StatusCode == http.StatusOK:
		return false
	}
	t.Fatalf("GET / = %d", res.StatusCode)
	return false
}

// A copied session cookie is refused once the session has ended, on every instance.
func TestSessionCookieReplayRefused(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{})
	other := p.Instance(t) // a second portal process on the same database
	admin := p.SignedIn(t, "admin")
	siti := p.CreateUser(t, "siti", "finance")

	tests := []struct {
		name   string
		revoke func(c *portaltest.Client)
	}{
		{"sign-out", func(c *portaltest.Client) {
			if res := c.Post("/logout", nil); res.StatusCode != http.StatusSeeOther {
				t.Fatalf("logout: %d", res.StatusCode)
			}
		}},
		{"admin resets the password", func(*portaltest.Client) {
			if res := admin.Post("/staff/"+siti.ID+"/password", url.Values{"password": {portaltest.Password}}); res.StatusCode != http.StatusSeeOther {
				t.Fatalf("reset: %d", res.StatusCode)
			}
		}},
		{"disable, then enable", func(*portaltest.Client) {
			for _, action := range []string{"disable", "enable"} {
				if res := admin.Post("/staff/"+siti.ID+"/"+action, confirmYes()); res.StatusCode != http.StatusSeeOther {
					t.Fatalf("%s: %d", action, res.StatusCode)
				}
			}
		}},
		{"role change", func(*portaltest.Client) {
			role := "principal"
			if mustUser(t, p, "siti").Role == role {
				role = "finance"
			}
			if res := admin.Post("/staff/"+siti.ID+"/role", url.Values{"role": {role}}); res.StatusCode != http.StatusSeeOther {
				t.Fatalf("role: %d", res.StatusCode)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := p.SignedIn(t, "siti")
			// A session made on one instance works on the other.
			if signedOut(t, c.On(other)) {
				t.Fatal("the session is not known to the other instance")
			}
			stolen := copyCookies(t, p, c)
			tt.revoke(c)
			if !signedOut(t, stolen) {
				t.Error("the copied cookie still works on the instance that ended it")
			}
			if !signedOut(t, stolen.On(other)) {
				t.Error("the copied cookie still works on the other instance")
			}
			if !signedOut(t, c) {
				t.Error("the person is still signed in")
			}
		})
	}
	// The admin's own session was untouched throughout.
	if signedOut(t, admin) {
		t.Fatal("the admin was signed out")
	}
}

// Every signed-in person sees where they are signed in, can end another device's
// session, change their password (ending the others) and sign out everywhere.
func TestAccountSessions(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{})
	phone := p.NewClient(t)
	phone.Get("/login")
	if res := phone.Post("/login", url.Values{"username": {"finance"}, "password": {portaltest.Password}},
		"User-Agent", "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("phone sign-in: %d", res.StatusCode)
	}
	tablet := p.SignedIn(t, "finance")
	laptop := p.SignedIn(t, "finance")
	p.SignedIn(t, "admin") // someone else's session is never listed

	res := laptop.Get("/account")
	rows := res.Doc.Find(`[data-testid="sessions-table"] tbody tr`)
	if res.StatusCode != http.StatusOK || rows.Length() != 3 {
		t.Fatalf("/account: %d, %d sessions listed, want 3\n%s", res.StatusCode, rows.Length(), res.Body)
	}
	if cur := res.Doc.Find(`[data-testid="session-current"]`); cur.Length() != 1 {
		t.Fatalf("%d sessions marked current, want 1", cur.Length())
	}
	if !strings.Contains(rows.Text(), "Chrome · Android") || !strings.Contains(rows.Text(), "127.0.0.1") ||
		!strings.Contains(rows.Text(), "Go-http-client") {
		t.Errorf("device and address not shown:\n%s", rows.Text())
	}
	if link := laptop.Get("/").Doc.Find(`a[data-testid="user-name"]`).AttrOr("href", ""); link != "/account" {
		t.Errorf("the top bar's name links to %q, want /account", link)
	}

	// End the phone's session from the laptop.
	var phoneRow string
	rows.Each(func(_ int, s *goquery.Selection) {
		if strings.Contains(s.Text(), "Android") {
			phoneRow = s.Find(`form`).AttrOr("action", "")
		}
	})
	if res := laptop.Post(phoneRow, nil); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/account" {
		t.Fatalf("end the phone's session: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	res = laptop.Get("/account")
	if !strings.Contains(res.Doc.Find(`[data-testid="flash"]`).Text(), "Sesi diakhiri") {
		t.Errorf("no confirmation: %q", res.Doc.Find(`[data-testid="flash"]`).Text())
	}
	if !signedOut(t, phone) || signedOut(t, tablet) || signedOut(t, laptop) {
		t.Fatal("ending the phone's session ended the wrong ones")
	}
	// Ending it again says it had already ended.
	laptop.Post(phoneRow, nil)
	if msg := laptop.Get("/account").Doc.Find(`[data-testid="flash"]`).Text(); !strings.Contains(msg, "sudah berakhir") {
		t.Errorf("ending an ended session: flash %q", msg)
	}

	// Change the password: mistakes are named per field, nothing typed is sent back.
	res = laptop.Post("/account/password", url.Values{"current_password": {"not-it-at-all"}, "new_password": {"kata-sandi-baru-saya"}, "repeat_password": {"kata-sandi-baru-saya"}})
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(res.Doc.Find(`[data-testid="error-current_password"]`).Text(), "salah") {
		t.Fatalf("wrong current password: %d %q", res.StatusCode, res.Doc.Find(`[data-testid="error-current_password"]`).Text())
	}
	if strings.Contains(res.Body, "kata-sandi-baru-saya") || strings.Contains(res.Body, "not-it-at-all") {
		t.Fatal("a typed password was sent back")
	}
	res = laptop.Post("/account/password", url.Values{"current_password": {portaltest.Password}, "new_password": {"kata-sandi-baru-saya"}, "repeat_password": {"kata-sandi-baru-sayA"}})
	if res.StatusCode != http.StatusUnprocessableEntity || res.Doc.Find(`[data-testid="error-repeat_password"]`).Length() != 1 {
		t.Fatalf("repeat mismatch: %d", res.StatusCode)
	}
	res = laptop.Post("/account/password", url.Values{"current_password": {portaltest.Password}, "new_password": {"kata-sandi-baru-saya"}, "repeat_password": {"kata-sandi-baru-saya"}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/account" {
		t.Fatalf("change password: %d", res.StatusCode)
	}
	if !signedOut(t, tablet) || signedOut(t, laptop) {
		t.Fatal("after the change the other device should be signed out and this one not")
	}
	res = laptop.Get("/account")
	if n := res.Doc.Find(`[data-testid="sessions-table"] tbody tr`).Length(); n != 1 {
		t.Errorf("%d sessions after the change, want this one", n)
	}
	if _, err := p.Auth.SignIn(t.Context(), "finance", "kata-sandi-baru-saya", "127.0.0.1"); err != nil {
		t.Errorf("the new password does not work: %v", err)
	}

	// Sign out everywhere, this device included.
	second := p.NewClient(t)
	second.Get("/login")
	second.Post("/login", url.Values{"username": {"finance"}, "password": {"kata-sandi-baru-saya"}})
	res = laptop.Post("/account/sessions/end-all", confirmYes())
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/login" {
		t.Fatalf("sign out everywhere: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	if msg := laptop.Get("/login").Doc.Find(`[data-testid="flash"]`).Text(); !strings.Contains(msg, "semua perangkat") {
		t.Errorf("sign-in page after signing out everywhere: flash %q", msg)
	}
	if !signedOut(t, second) || !signedOut(t, laptop) {
		t.Fatal("a session survived signing out everywhere")
	}
	entries, _, _ := p.DB.ListAudit(t.Context(), store.AuditFilter{Action: "session.end_all", Limit: 5})
	if len(entries) != 1 || entries[0].Actor != "finance" || entries[0].Detail != "2 sessions ended" {
		t.Errorf("audit = %+v", entries)
	}
}

// An admin sees a person's sessions on their staff page and ends one or all; changing
// the person's access ends them too.
func TestStaffSessions(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{})
	admin := p.SignedIn(t, "admin")
	finance := mustUser(t, p, "finance")
	a, b := p.SignedIn(t, "finance"), p.SignedIn(t, "finance")

	res := admin.Get("/staff/" + finance.ID)
	rows := res.Doc.Find(`[data-testid="sessions-table"] tbody tr`)
	if rows.Length() != 2 || res.Doc.Find(`[data-testid="session-current"]`).Length() != 0 {
		t.Fatalf("finance's sessions on the staff page: %d rows\n%s", rows.Length(), res.Body)
	}
	end := rows.First().Find("form").AttrOr("action", "")
	if !strings.HasPrefix(end, "/staff/"+finance.ID+"/sessions/") {
		t.Fatalf("end action = %q", end)
	}
	if res := admin.Post(end, nil); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/staff/"+finance.ID {
		t.Fatalf("end one: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	if signedOut(t, a) == signedOut(t, b) {
		t.Fatal("ending one session did not end exactly one")
	}
	// A principal cannot end anyone's sessions, nor see them.
	principal := p.SignedIn(t, "principal")
	if res := principal.Post("/staff/"+finance.ID+"/sessions/end-all", confirmYes()); res.StatusCode != http.StatusForbidden {
		t.Fatalf("principal ends finance's sessions: %d", res.StatusCode)
	}
	// Another person's session id under this person's page ends nothing.
	adminSessions := admin.Get("/account").Doc.Find(`[data-testid="sessions-table"] form`).AttrOr("action", "")
	sid := strings.TrimSuffix(strings.TrimPrefix(adminSessions, "/account/sessions/"), "/end")
	admin.Post("/staff/"+finance.ID+"/sessions/"+sid+"/end", nil)
	if signedOut(t, admin) {
		t.Fatal("the admin's session was ended through another person's page")
	}

	c := p.SignedIn(t, "finance")
	if res := admin.Post("/staff/"+finance.ID+"/sessions/end-all", confirmYes()); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("end all: %d", res.StatusCode)
	}
	if !signedOut(t, a) || !signedOut(t, b) || !signedOut(t, c) {
		t.Fatal("a session survived end all")
	}
	res = admin.Get("/staff/" + finance.ID)
	if res.Doc.Find(`[data-testid="sessions-empty"]`).Length() != 1 || !strings.Contains(res.Doc.Find(`[data-testid="flash"]`).Text(), "finance") {
		t.Fatalf("after end all: no empty list or no confirmation\n%s", res.Body)
	}
	// On the admin's own staff page, their session is "this session".
	self := mustUser(t, p, "admin")
	if admin.Get("/staff/"+self.ID).Doc.Find(`[data-testid="session-current"]`).Length() != 1 {
		t.Error("the admin's own session is not marked on their staff page")
	}
}
