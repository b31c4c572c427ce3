package web

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/sekolah/portal/internal/app"
	"github.com/sekolah/portal/internal/config"
)

func prefixes(s ...string) []netip.Prefix {
	var out []netip.Prefix
	for _, p := range s {
		out = append(out, netip.MustParsePrefix(p))
	}
	return out
}

func TestClientAddress(t *testing.T) {
	t.Parallel()
	proxies := prefixes("10.0.0.0/8", "127.0.0.1/32", "2001:db8::/32")
	tests := []struct {
		name    string
		trusted []netip.Prefix
		peer    string
		headers map[string][]string
		want    string
		https   bool
	}{
		{"no proxy, no headers", nil, "198.51.100.7:51234", nil, "198.51.100.7", false},
		{"no proxy trusted: every header ignored", nil, "198.51.100.7:51234", map[string][]string{
			"X-Forwarded-For": {"1.2.3.4"}, "X-Real-Ip": {"1.2.3.5"}, "True-Client-Ip": {"1.2.3.6"}, "X-Forwarded-Proto": {"https"},
		}, "198.51.100.7", false},
		{"untrusted peer: its headers ignored", proxies, "198.51.100.7:51234", map[string][]string{
			"X-Forwarded-For": {"10.0.0.5"}, "X-Forwarded-Proto": {"https"},
		}, "198.51.100.7", false},
		{"trusted proxy, one hop", proxies, "10.0.0.2:443", map[string][]string{
			"X-Forwarded-For": {"203.0.113.9"}, "X-Forwarded-Proto": {"https"},
		}, "203.0.113.9", true},
		{"client prepends a spoof: the rightmost untrusted entry wins", proxies, "10.0.0.2:443", map[string][]string{
			"X-Forwarded-For": {"1.2.3.4, 10.9.9.9, 203.0.113.9"},
		}, "203.0.113.9", false},
		{"two trusted hops", proxies, "127.0.0.1:8080", map[string][]string{
			"X-Forwarded-For": {"1.2.3.4, 203.0.113.9, 10.0.0.3"},
		}, "203.0.113.9", false},
		{"entries split over header lines", proxies, "10.0.0.2:443", map[string][]string{
			"X-Forwarded-For": {"1.2.3.4", "203.0.113.9, 10.0.0.3"},
		}, "203.0.113.9", false},
		{"X-Real-IP and True-Client-IP never read", proxies, "10.0.0.2:443", map[string][]string{
			"X-Real-Ip": {"1.2.3.5"}, "True-Client-Ip": {"1.2.3.6"},
		}, "10.0.0.2", false},
		{"trusted proxy without X-Forwarded-For", proxies, "10.0.0.2:443", nil, "10.0.0.2", false},
		{"every hop trusted: the leftmost", proxies, "10.0.0.2:443", map[string][]string{
			"X-Forwarded-For": {"10.1.1.1, 10.0.0.3"},
		}, "10.1.1.1", false},
		{"garbage before the trusted hops stops the walk", proxies, "10.0.0.2:443", map[string][]string{
			"X-Forwarded-For": {"not-an-address, 10.0.0.3"},
		}, "10.0.0.3", false},
		{"entries with ports and IPv6", proxies, "[2001:db8::1]:443", map[string][]string{
			"X-Forwarded-For": {"[2001:db8:ffff::9]:1234, 203.0.113.9:5555, [2001:db8::2]:80"},
		}, "203.0.113.9", false},
		{"IPv4-mapped peer matches an IPv4 network", proxies, "[::ffff:10.0.0.2]:443", map[string][]string{
			"X-Forwarded-For": {"::ffff:203.0.113.9"}, "X-Forwarded-Proto": {"HTTPS"},
		}, "203.0.113.9", true},
		{"forwarded proto: the nearest proxy's value", proxies, "10.0.0.2:443", map[string][]string{
			"X-Forwarded-Proto": {"https, http"},
		}, "10.0.0.2", false},
		{"peer without a port", proxies, "198.51.100.7", nil, "198.51.100.7", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.RemoteAddr = tt.peer
			for k, vs := range tt.headers {
				for _, v := range vs {
					r.Header.Add(k, v)
				}
			}
			h := newHandler(Deps{App: &app.App{Config: config.Config{TrustedProxies: tt.trusted}}})
			var got string
			var https bool
			h.clientAddress(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got, https = h.clientIP(r), h.isHTTPS(r)
			})).ServeHTTP(httptest.NewRecorder(), r)
			if got != tt.want || https != tt.https {
				t.Errorf("client = %q, https %v; want %q, https %v", got, https, tt.want, tt.https)
			}
		})
	}
}

func TestStrictTransportSecurity(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		trusted []netip.Prefix
		tls     bool
		proto   string
		want    string
	}{
		{"plain http", nil, false, "", ""},
		{"https", nil, true, "", "max-age=31536000"},
		{"forwarded https from a stranger", nil, false, "https", ""},
		{"forwarded https from a trusted proxy", prefixes("192.0.2.0/24"), false, "https", "max-age=31536000"},
		{"forwarded http from a trusted proxy", prefixes("192.0.2.0/24"), false, "http", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHandler(Deps{App: &app.App{Config: config.Config{TrustedProxies: tt.trusted}}})
			r := httptest.NewRequest(http.MethodGet, "/", nil) // RemoteAddr 192.0.2.1:1234
			if tt.tls {
				r.TLS = &tls.ConnectionState{}
			}
			if tt.proto != "" {
				r.Header.Set("X-Forwarded-Proto", tt.proto)
			}
			w := httptest.NewRecorder()
			h.clientAddress(h.securityHeaders(http.NotFoundHandler())).ServeHTTP(w, r)
			if got := w.Header().Get("Strict-Transport-Security"); got != tt.want {
				t.Errorf("Strict-Transport-Security = %q, want %q", got, tt.want)
			}
			if w.Header().Get("X-Content-Type-Options") != "nosniff" {
				t.Error("the other security headers went missing")
			}
		})
	}
}
