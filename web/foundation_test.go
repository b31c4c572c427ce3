package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/store"
)

func TestSignInAndOut(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{})
	c := p.NewClient(t)

	res := c.Get("/")
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/login" {
		t.Fatalf("anonymous / = %d %q, want 303 to /login", res.StatusCode, res.Header.Get("Location"))
	}
	res = c.Get("/audit?action=auth.signin")
	if loc := res.Header.Get("Location"); loc != "/login?next="+url.QueryEscape("/audit?action=auth.signin") {
		t.Fatalf("anonymous /audit redirects to %q", loc)
	}

	c.Get("/login")
	res = c.Post("/login", url.Values{"username": {"admin"}, "password": {"wrong-password"}})
	if res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("wrong password: status %d", res.StatusCode)
	}
	if got := res.Doc.Find(`[data-testid="login-error"]`).Text(); !strings.Contains(got, "Nama pengguna atau kata sandi salah") {
		t.Fatalf("wrong password message = %q", got)
	}
	if v, _ := res.Doc.Find(`input[name="username"]`).Attr("value"); v != "admin" {
		t.Fatalf("the typed username was lost: %q", v)
	}

	res = c.Post("/login", url.Values{"username": {"Admin"}, "password": {portaltest.Password}, "next": {"/audit"}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/audit" {
		t.Fatalf("sign in: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	res = c.Get("/")
	if res.StatusCode != http.StatusOK || res.Doc.Find(`[data-testid="user-name"]`).Text() != "Admin Staf" {
		t.Fatalf("home after sign-in: %d\n%s", res.StatusCode, res.Body)
	}
	if got := res.Doc.Find(`[data-testid="env-banner"]`).Text(); !strings.Contains(got, "SANDBOX") {
		t.Fatalf("banner = %q", got)
	}

	res = c.Post("/logout", nil)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/login" {
		t.Fatalf("logout: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	if res := c.Get("/"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("after logout / = %d, want a redirect to sign in", res.StatusCode)
	}
}

func TestOpenRedirectRefused(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{})
	for _, next := range []string{"https://evil.example/", "//evil.example", "/\\evil.example", "javascript:alert(1)",
		"/\t/evil.example", "/%09/evil.example", "/%0b/evil.example", "/%0c/evil.example", "/%00/evil.example"} {
		c := p.NewClient(t)
		c.Get("/login")
		res := c.Post("/login", url.Values{"username": {"finance"}, "password": {portaltest.Password}, "next": {next}})
		if loc := res.Header.Get("Location"); loc != "/" {
			t.Errorf("next=%q redirected to %q", next, loc)
		}
	}
}

func TestLockOutAfterFailures(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	p := portaltest.Start(t, portaltest.Options{Now: now})
	c := p.NewClient(t)
	c.Get("/login")
	for i := 0; i < 5; i++ {
		c.Post("/login", url.Values{"username": {"finance"}, "password": {"nope-nope-nope"}})
	}
	// Even the right password is refused while locked, and the page says until when.
	res := c.Post("/login", url.Values{"username": {"finance"}, "password": {portaltest.Password}})
	if res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("locked sign-in: status %d", res.StatusCode)
	}
	msg := res.Doc.Find(`[data-testid="login-error"]`).Text()
	if !strings.Contains(msg, "dikunci dari alamat Anda sampai 22 Nov 2026 10:15") || !strings.Contains(msg, "15 menit") {
		t.Fatalf("locked message = %q", msg)
	}
	// Other accounts are not locked by someone else's failures.
	if res := c.Post("/login", url.Values{"username": {"admin"}, "password": {portaltest.Password}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("admin sign-in while finance is locked: %d", res.StatusCode)
	}
	// After the lock the right password works again.
	p.SetNow(now.Add(16 * time.Minute))
	c2 := p.NewClient(t)
	c2.Get("/login")
	if res := c2.Post("/login", url.Values{"username": {"finance"}, "password": {portaltest.Password}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in after the lock: %d", res.StatusCode)
	}
}

func TestIdleSessionExpires(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	p := portaltest.Start(t, portaltest.Options{Now: now})
	c := p.SignedIn(t, "principal")
	p.SetNow(now.Add(7 * time.Hour))
	if res := c.Get("/"); res.StatusCode != http.StatusOK {
		t.Fatalf("after 7h: %d", res.StatusCode)
	}
	p.SetNow(now.Add(16 * time.Hour)) // 9h after the last request: past the 8h idle limit
	if res := c.Get("/"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("after 9h idle: %d, want a redirect to sign in", res.StatusCode)
	}
}

func TestSessionCookieFlags(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{})
	c := p.NewClient(t)
	c.Get("/login")
	res := c.Post("/login", url.Values{"username": {"admin"}, "password": {portaltest.Password}})
	var found bool
	for _, ck := range res.Cookies() {
		if ck.Name == "portal_session" {
			found = true
			if !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode {
				t.Fatalf("cookie flags: %+v", ck)
			}
		}
	}
	if !found {
		t.Fatal("sign-in set no session cookie")
	}
}

func TestCSRFRequired(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{})
	c := p.SignedIn(t, "admin")
	form := url.Values{"username": {"budi"}, "display_name": {"Budi"}, "role": {"finance"}, "password": {"a-long-password"}}

	bad := url.Values{"csrf_token": {"forged"}}
	for k, v := range form {
		bad[k] = v
	}
	if res := c.Post("/staff", bad); res.StatusCode != http.StatusForbidden {
		t.Fatalf("forged token: %d", res.StatusCode)
	}
	// HTMX sends the token as a header instead of a field.
	req, _ := http.NewRequest(http.MethodPost, p.URL+"/staff", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("HX-Request", "true")
	req.Header.Set("X-CSRF-Token", c.CSRF)
	res := c.Do(req)
	if res.StatusCode != http.StatusOK || res.Header.Get("HX-Redirect") != "/staff" {
		t.Fatalf("HTMX create with header token: %d %q\n%s", res.StatusCode, res.Header.Get("HX-Redirect"), res.Body)
	}
	if _, err := p.DB.UserByUsername(t.Context(), "budi"); err != nil {
		t.Fatalf("budi was not created: %v", err)
	}
}

func TestRolesEnforcedOnServer(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{})
	admin := p.SignedIn(t, "admin")
	principalID := mustUser(t, p, "principal").ID
	tests := []struct {
		user, method, path string
		want               int
	}{
		{"principal", "GET", "/", 200},
		{"principal", "GET", "/staff", 403},
		{"principal", "POST", "/staff", 403},
		{"principal", "POST", "/staff/" + principalID + "/role", 403},
		{"principal", "GET", "/audit", 403},
		{"finance", "GET", "/staff", 403},
		{"finance", "POST", "/staff/" + principalID + "/disable", 403},
		{"finance", "GET", "/audit", 403},
		{"admin", "GET", "/staff", 200},
		{"admin", "GET", "/audit", 200},
		{"admin", "GET", "/staff/" + principalID, 200},
		{"admin", "GET", "/staff/no-such-id", 404},
	}
	clients := map[string]*portaltest.Client{"admin": admin}
	for _, tt := range tests {
		c := clients[tt.user]
		if c == nil {
			c = p.SignedIn(t, tt.user)
			clients[tt.user] = c
		}
		var res *portaltest.Response
		if tt.method == "GET" {
			res = c.Get(tt.path)
		} else {
			res = c.Post(tt.path, url.Values{"role": {"admin"}, "username": {"x"}})
		}
		if res.StatusCode != tt.want {
			t.Errorf("%s %s %s = %d, want %d", tt.user, tt.method, tt.path, res.StatusCode, tt.want)
		}
	}
	// The principal's forged role change did nothing.
	if u := mustUser(t, p, "principal"); u.Role != "principal" {
		t.Fatalf("principal's role became %q", u.Role)
	}
	// A principal sees no staff or audit links.
	res := clients["principal"].Get("/")
	if res.Doc.Find(`[data-testid="nav-staff"], [data-testid="nav-audit"]`).Length() != 0 {
		t.Fatal("principal sees admin navigation")
	}
}

func mustUser(t *testing.T, p *portaltest.Portal, username string) store.User {
	t.Helper()
	u, err := p.DB.UserByUsername(t.Context(), username)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestStaffManagement(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{})
	c := p.SignedIn(t, "admin")

	// Mistakes come back with what was typed and a message beside each field.
	res := c.Post("/staff", url.Values{"username": {"Siti Aminah"}, "display_name": {"Siti Aminah"}, "role": {"finance"}, "password": {"short"}})
	if res.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("invalid create: %d", res.StatusCode)
	}
	if got := res.Doc.Find(`[data-testid="error-username"]`).Text(); got == "" {
		t.Fatal("no username error")
	}
	if got := res.Doc.Find(`[data-testid="error-password"]`).Text(); !strings.Contains(got, "10 karakter") {
		t.Fatalf("password error = %q", got)
	}
	if v, _ := res.Doc.Find(`input[name="display_name"]`).Attr("value"); v != "Siti Aminah" {
		t.Fatalf("display name lost: %q", v)
	}

	// The same mistake over HTMX gets only the form back.
	res = c.Post("/staff", url.Values{"username": {"siti"}, "display_name": {""}, "role": {"finance"}, "password": {"a-long-password"}}, "HX-Request", "true")
	if res.StatusCode != http.StatusUnprocessableEntity || strings.Contains(res.Body, "<html") || res.Doc.Find("#staff-create").Length() != 1 {
		t.Fatalf("HTMX invalid create: %d\n%s", res.StatusCode, res.Body)
	}
	if !strings.Contains(strings.Join(res.Header.Values("Vary"), ","), "HX-Request") {
		t.Fatalf("Vary = %q", res.Header.Get("Vary"))
	}

	res = c.Post("/staff", url.Values{"username": {"siti"}, "display_name": {"Siti Aminah"}, "role": {"finance"}, "password": {"a-long-password"}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("create: %d\n%s", res.StatusCode, res.Body)
	}
	res = c.Get("/staff")
	if res.Doc.Find(`[data-testid="staff-siti"]`).Length() != 1 || !strings.Contains(res.Doc.Find(`[data-testid="flash"]`).Text(), "siti") {
		t.Fatalf("new account not listed or no confirmation:\n%s", res.Body)
	}
	if res := c.Post("/staff", url.Values{"username": {"SITI"}, "display_name": {"Other"}, "role": {"finance"}, "password": {"a-long-password"}}); !strings.Contains(res.Doc.Find(`[data-testid="error-username"]`).Text(), "sudah dipakai") {
		t.Fatal("duplicate username not reported")
	}

	siti := mustUser(t, p, "siti")
	if res := c.Post("/staff/"+siti.ID+"/role", url.Values{"role": {"principal"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("change role: %d", res.StatusCode)
	}
	if res := c.Post("/staff/"+siti.ID+"/password", url.Values{"password": {"another-long-one"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("reset password: %d", res.StatusCode)
	}
	if res := c.Post("/staff/"+siti.ID+"/disable", confirmYes()); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("disable: %d", res.StatusCode)
	}
	siti = mustUser(t, p, "siti")
	if siti.Role != "principal" || !siti.Disabled {
		t.Fatalf("siti = %+v", siti)
	}
	s := p.NewClient(t)
	s.Get("/login")
	if res := s.Post("/login", url.Values{"username": {"siti"}, "password": {"another-long-one"}}); res.StatusCode != http.StatusForbidden ||
		!strings.Contains(res.Doc.Find(`[data-testid="login-error"]`).Text(), "dinonaktifkan") {
		t.Fatalf("disabled sign-in: %d", res.StatusCode)
	}

	// The only admin cannot demote or disable themself.
	admin := mustUser(t, p, "admin")
	if res := c.Post("/staff/"+admin.ID+"/role", url.Values{"role": {"finance"}}); res.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("demote last admin: %d", res.StatusCode)
	}
	if res := c.Post("/staff/"+admin.ID+"/disable", confirmYes()); res.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("disable self: %d", res.StatusCode)
	}

	// Every change is in the audit log, filterable by action.
	res = c.Get("/audit?action=staff.role")
	if rows := res.Doc.Find(`[data-testid="audit-table"] tbody tr`); rows.Length() != 2 {
		t.Fatalf("staff.role entries = %d, want 2 (ok and refused)\n%s", rows.Length(), res.Body)
	}
	res = c.Get("/audit")
	for _, action := range []string{"auth.signin", "staff.create", "staff.password", "staff.disable"} {
		if !strings.Contains(res.Doc.Find(`[data-testid="audit-table"]`).Text(), action) {
			t.Errorf("audit log has no %s entry", action)
		}
	}
	// HTMX filter requests get only the results.
	res = c.Get("/audit?actor=admin", "HX-Request", "true")
	if strings.Contains(res.Body, "<html") || res.Doc.Find("#audit-results").Length() != 1 {
		t.Fatalf("HTMX audit filter returned a whole page")
	}
}

func TestLanguageSwitch(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{})
	c := p.SignedIn(t, "finance")
	if res := c.Get("/"); !strings.Contains(res.Body, "Keluar") {
		t.Fatal("default language is not Indonesian")
	}
	res := c.Post("/lang", url.Values{"lang": {"en"}, "next": {"/"}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("switch: %d", res.StatusCode)
	}
	res = c.Get("/")
	if !strings.Contains(res.Body, "Sign out") || res.Doc.Find("html").AttrOr("lang", "") != "en" {
		t.Fatal("English not shown after the switch")
	}
	// The choice belongs to the person: a new session keeps it.
	if res := p.SignedIn(t, "finance").Get("/"); !strings.Contains(res.Body, "Sign out") {
		t.Fatal("language choice not remembered for the account")
	}
}

func TestSecurityHeadersAndErrors(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{})
	c := p.SignedIn(t, "admin")
	res := c.Get("/")
	for h, want := range map[string]string{
		"X-Content-Type-Options": "nosniff",
		"Referrer-Policy":        "same-origin",
	} {
		if got := res.Header.Get(h); got != want {
			t.Errorf("%s = %q, want %q", h, got, want)
		}
	}
	csp := res.Header.Get("Content-Security-Policy")
	for _, part := range []string{"script-src 'self'", "frame-ancestors 'none'", "style-src 'self'"} {
		if !strings.Contains(csp, part) {
			t.Errorf("CSP %q lacks %q", csp, part)
		}
	}
	if strings.Contains(csp, "unsafe-inline") || strings.Contains(res.Body, "<script>") || strings.Contains(res.Body, " style=") {
		t.Error("inline script or style found")
	}

	res = c.Get("/no/such/page")
	if res.StatusCode != http.StatusNotFound || res.Doc.Find(`[data-testid="error-page"]`).Length() != 1 ||
		res.Doc.Find(".sidenav").Length() != 1 {
		t.Fatalf("404 not in the shell: %d", res.StatusCode)
	}
	if !strings.Contains(res.Body, "Halaman tidak ditemukan") {
		t.Fatal("404 page not in Indonesian")
	}

	hres, err := http.Get(p.URL + "/healthz")
	if err != nil || hres.StatusCode != http.StatusOK {
		t.Fatalf("healthz: %v %v", err, hres)
	}
	hres.Body.Close()
}

func TestCrossSiteRequestRefused(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{})
	c := p.SignedIn(t, "admin")
	res := c.Post("/staff", url.Values{"username": {"eve"}, "display_name": {"Eve"}, "role": {"admin"}, "password": {"a-long-password"}},
		"Sec-Fetch-Site", "cross-site", "Origin", "https://evil.example")
	if res.StatusCode != http.StatusForbidden || res.Doc.Find(`[data-testid="error-page"]`).Length() != 1 {
		t.Fatalf("cross-site POST: %d", res.StatusCode)
	}
	if _, err := p.DB.UserByUsername(t.Context(), "eve"); err == nil {
		t.Fatal("cross-site POST created an account")
	}
}
