package web_test

import (
	"context"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/config"
	"github.com/sekolah/portal/internal/portaltest"
)

// TestLoginDeviceCookie: a stranger guessing one account from many addresses locks it for
// new devices (said in words), but the person signs in from the browser they signed in
// from before, whose device cookie the sign-in set; a tampered cookie is no such proof.
func TestLoginDeviceCookie(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Config: func(c *config.Config) {
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	}})
	// Slowed-down guesses pass at once (as proxy_test.go does).
	p.Auth.Sleep = func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
	// Siti signs in from her laptop: it gets the device cookie, signed, for months.
	laptop := p.NewClient(t)
	laptop.Login("finance")
	u, _ := url.Parse(p.URL)
	var device *http.Cookie
	for _, c := range laptop.HTTP.Jar.Cookies(u) {
		if c.Name == "portal_device" {
			device = c
		}
	}
	if device == nil || device.Value == "" || strings.Contains(device.Value, "finance") {
		t.Fatalf("device cookie %+v", device)
	}
	laptop.Post("/logout", nil)

	// Ten guesses from ten addresses.
	stranger := p.NewClient(t)
	stranger.Get("/login")
	for i := range 10 {
		res := stranger.Post("/login", url.Values{"username": {"finance"}, "password": {"guess-" + strconv.Itoa(i)}},
			"X-Forwarded-For", "192.0.2."+strconv.Itoa(i+1))
		if res.StatusCode != http.StatusUnauthorized && res.StatusCode != http.StatusTooManyRequests {
			t.Fatalf("guess %d: %d", i+1, res.StatusCode)
		}
	}
	// Now the right password from a new device is refused, in words.
	res := stranger.Post("/login", url.Values{"username": {"finance"}, "password": {portaltest.Password}}, "X-Forwarded-For", "192.0.2.99")
	if res.StatusCode != http.StatusTooManyRequests || !strings.Contains(res.Body, "hanya dapat dipakai masuk dari perangkat yang pernah dipakai") {
		t.Fatalf("a new device: %d\n%s", res.StatusCode, res.Body)
	}
	// A tampered device cookie proves nothing.
	forged := p.NewClient(t)
	forged.HTTP.Jar.SetCookies(u, []*http.Cookie{{Name: "portal_device", Value: device.Value[:len(device.Value)-4] + "AAAA"}})
	forged.Get("/login")
	if res := forged.Post("/login", url.Values{"username": {"finance"}, "password": {portaltest.Password}}); res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("a forged device cookie: %d", res.StatusCode)
	}
	// Siti's laptop signs in.
	laptop.Get("/login")
	if res := laptop.Post("/login", url.Values{"username": {"finance"}, "password": {portaltest.Password}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("the known laptop: %d\n%s", res.StatusCode, res.Body)
	}
}
