package web

import (
	"context"
	"net/http"
	"net/netip"
	"strings"
)

// client is who sent a request, as far as the portal can tell: the address used for
// sign-in throttling, rate limits and the audit log, and whether the request reached the
// first hop over HTTPS.
type client struct {
	addr  string
	https bool
}

type clientKey struct{}

// clientAddress works out the request's client once, before anything reads it. It replaces
// chi's RealIP, which believed whatever X-Forwarded-For, X-Real-IP or True-Client-IP said.
func (h *Handler) clientAddress(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := clientOf(r, h.cfg.TrustedProxies)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), clientKey{}, c)))
	})
}

// clientIP is the address used for sign-in throttling, rate limits and the audit log.
func (h *Handler) clientIP(r *http.Request) string { return h.client(r).addr }

// isHTTPS reports whether the request came over HTTPS, directly or, per a trusted proxy's
// X-Forwarded-Proto, to that proxy.
func (h *Handler) isHTTPS(r *http.Request) bool { return h.client(r).https }

func (h *Handler) client(r *http.Request) client {
	if c, ok := r.Context().Value(clientKey{}).(client); ok {
		return c
	}
	return clientOf(r, h.cfg.TrustedProxies)
}

// clientOf derives the client from the connection and, only when the connection comes
// from a trusted proxy, from X-Forwarded-For and X-Forwarded-Proto. Walking
// X-Forwarded-For from the right, each trusted hop vouches for the entry before it; the
// first entry that is not a trusted proxy is the client. Entries further left were written
// by the client itself and are never read, nor is any other header.
func clientOf(r *http.Request, trusted []netip.Prefix) client {
	peer, ok := parseAddr(r.RemoteAddr)
	if !ok {
		// Not an IP connection (a unix socket, a test's made-up address): nothing to trust.
		return client{addr: r.RemoteAddr, https: r.TLS != nil}
	}
	c := client{addr: peer.String(), https: r.TLS != nil}
	if !isTrusted(peer, trusted) {
		return c
	}
	if protos := r.Header.Values("X-Forwarded-Proto"); len(protos) > 0 {
		// A proxy that appends rather than replaces puts its own view last.
		values := strings.Split(protos[len(protos)-1], ",")
		c.https = c.https || strings.EqualFold(strings.TrimSpace(values[len(values)-1]), "https")
	}
	var hops []string
	for _, line := range r.Header.Values("X-Forwarded-For") {
		hops = append(hops, strings.Split(line, ",")...)
	}
	for i := len(hops) - 1; i >= 0; i-- {
		a, ok := parseAddr(strings.TrimSpace(hops[i]))
		if !ok {
			// A trusted proxy wrote this (it is right of every untrusted entry) or the
			// list is mangled: the last address vouched for is the best there is.
			return c
		}
		c.addr = a.String()
		if !isTrusted(a, trusted) {
			return c
		}
	}
	return c
}

// parseAddr reads an address with or without a port ("203.0.113.9", "203.0.113.9:443",
// "[2001:db8::1]:443", "2001:db8::1"), unmapping IPv4-in-IPv6 and dropping any zone.
func parseAddr(s string) (netip.Addr, bool) {
	a, err := netip.ParseAddr(s)
	if err != nil {
		ap, err := netip.ParseAddrPort(s)
		if err != nil {
			return netip.Addr{}, false
		}
		a = ap.Addr()
	}
	return a.Unmap().WithZone(""), true
}

func isTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
