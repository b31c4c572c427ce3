package web_test

import (
	"strings"
	"testing"

	"github.com/sekolah/portal/internal/portaltest"
)

// An admin ends a person's sessions from the staff page, then signs out everywhere from
// their own account page.
func TestBrowserEndSessions(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{})
	finance := mustUser(t, p, "finance")
	other := p.SignedIn(t, "finance") // finance, on another device
	b := p.NewBrowser(t)
	b.SignIn("admin", portaltest.Password)

	b.Visit("/staff/" + finance.ID)
	if n := b.Count(`[data-testid="sessions-table"] tbody tr`); n != 1 {
		t.Fatalf("finance's sessions listed: %d, want 1", n)
	}
	b.Screenshot("staff-sessions")
	b.Click(`[data-testid="sessions-end-all"]`)
	b.Click(`[data-testid="confirm-yes"]`)
	b.WaitVisible(`[data-testid="sessions-empty"]`)
	if msg := b.Text(`[data-testid="flash"]`); !strings.Contains(msg, "finance") {
		t.Fatalf("confirmation = %q", msg)
	}
	if !signedOut(t, other) {
		t.Fatal("finance's other device is still signed in")
	}

	// The name in the top bar leads to the admin's own sessions.
	b.Click(`[data-testid="user-name"]`)
	b.WaitVisible(`[data-testid="session-current"]`)
	b.Screenshot("account")
	b.Click(`[data-testid="sessions-end-all"]`)
	b.Click(`[data-testid="confirm-yes"]`)
	b.WaitVisible(`[data-testid="login-form"]`)
	if msg := b.Text(`[data-testid="flash"]`); !strings.Contains(msg, "semua perangkat") {
		t.Fatalf("after signing out everywhere: %q", msg)
	}
	b.Visit("/account")
	if loc := b.Location(); !strings.HasPrefix(loc, "/login") {
		t.Fatalf("after signing out everywhere /account shows %s", loc)
	}
}
