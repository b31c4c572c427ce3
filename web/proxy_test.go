package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/config"
	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/store"
)

// lastSignIn returns the newest sign-in audit entry for actor.
func lastSignIn(t *testing.T, p *portaltest.Portal, actor string) store.AuditEntry {
	t.Helper()
	entries, _, err := p.DB.ListAudit(t.Context(), store.AuditFilter{Actor: actor, Action: "auth.signin", Limit: 1})
	if err != nil || len(entries) == 0 {
		t.Fatalf("no sign-in audited for %s: %v", actor, err)
	}
	return entries[0]
}

// Without a trusted proxy, what a client writes in forwarding headers changes nothing:
// the audit log and the sign-in throttle see the connection's address.
func TestSpoofedForwardingHeadersIgnored(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Config: func(c *config.Config) {
		// A proxy is configured, but the test client (127.0.0.1) is not it.
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	}})
	c := p.NewClient(t)
	c.Get("/login")
	spoof := func(i int) []string {
		a := fmt.Sprintf("198.51.100.%d", i)
		return []string{"X-Forwarded-For", a, "X-Real-IP", a, "True-Client-IP", a, "Forwarded", "for=" + a}
	}
	for i := range 20 {
		c.Post("/login", url.Values{"username": {fmt.Sprintf("guess%02d", i)}, "password": {"wrong-password"}}, spoof(i)...)
	}
	if e := lastSignIn(t, p, "guess19"); e.IP != "127.0.0.1" {
		t.Fatalf("audit address = %q, want the connection's 127.0.0.1", e.IP)
	}
	// Twenty failures from one connection address lock it, whatever the headers claim.
	res := c.Post("/login", url.Values{"username": {"admin"}, "password": {portaltest.Password}}, spoof(99)...)
	if res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("sign-in after 20 failures with fresh spoofed addresses: %d, want 429", res.StatusCode)
	}
}

// Behind a trusted proxy the client is the rightmost X-Forwarded-For entry that is not a
// proxy; the throttle and the audit log use it.
func TestClientAddressBehindTrustedProxy(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Config: func(c *config.Config) {
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("10.0.0.0/8")}
	}})
	c := p.NewClient(t)
	c.Get("/login")
	// The client prepended an address of its own; the proxy appended the real one and a
	// second proxy its own.
	from := func(addr string) []string {
		return []string{"X-Forwarded-For", "192.0.2.66, " + addr + ", 10.0.0.3", "X-Real-IP", "192.0.2.67"}
	}
	for i := range 20 {
		c.Post("/login", url.Values{"username": {fmt.Sprintf("guess%02d", i)}, "password": {"wrong-password"}}, from("203.0.113.7")...)
	}
	if e := lastSignIn(t, p, "guess19"); e.IP != "203.0.113.7" {
		t.Fatalf("audit address = %q, want 203.0.113.7", e.IP)
	}
	if res := c.Post("/login", url.Values{"username": {"admin"}, "password": {portaltest.Password}}, from("203.0.113.7")...); res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("locked address: %d, want 429", res.StatusCode)
	}
	// Another client behind the same proxy is not locked out.
	other := p.NewClient(t)
	other.Get("/login")
	if res := other.Post("/login", url.Values{"username": {"admin"}, "password": {portaltest.Password}}, from("203.0.113.8")...); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in from another client behind the proxy: %d, want 303", res.StatusCode)
	}
	if e := lastSignIn(t, p, "admin"); e.IP != "203.0.113.8" || e.Outcome != "ok" {
		t.Fatalf("audit entry = %+v", e)
	}
}

// Twenty wrong passwords for the admin from one address (an attacker) lock that address
// out of the account; the admin signs in from theirs at once, only slowed down.
func TestFailuresElsewhereDoNotLockOut(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Config: func(c *config.Config) {
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	}})
	var mu sync.Mutex
	var slowed []time.Duration
	p.Auth.Sleep = func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		defer mu.Unlock()
		slowed = append(slowed, d)
		return nil
	}
	attacker := p.NewClient(t)
	attacker.Get("/login")
	for i := range 20 {
		res := attacker.Post("/login", url.Values{"username": {"admin"}, "password": {fmt.Sprintf("guess-%02d-password", i)}}, "X-Forwarded-For", "203.0.113.66")
		if want := http.StatusUnauthorized; i >= 4 {
			want = http.StatusTooManyRequests
			if res.StatusCode != want {
				t.Fatalf("attempt %d from the attacker: %d, want %d", i+1, res.StatusCode, want)
			}
		}
	}
	admin := p.NewClient(t)
	admin.Get("/login")
	res := admin.Post("/login", url.Values{"username": {"admin"}, "password": {portaltest.Password}}, "X-Forwarded-For", "198.51.100.10")
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("the admin from their own address: %d, want 303\n%s", res.StatusCode, res.Doc.Find(`[data-testid="login-error"]`).Text())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(slowed) == 0 || slices.Max(slowed) > 3*time.Second {
		t.Errorf("slow-downs = %v, want some, none over 3s", slowed)
	}
}
