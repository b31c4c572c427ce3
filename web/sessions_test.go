package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/sekolah/portal/internal/portaltest"
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
				if res := admin.Post("/staff/"+siti.ID+"/"+action, nil); res.StatusCode != http.StatusSeeOther {
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
