package auth

import "net/netip"

// AddressGroup is the key a per-address limit counts a client under: an IPv4 address as
// it is, an IPv6 address by its /64, the network one subscriber is given (its 2^64
// addresses cost nothing to change between requests). Anything that is not an IP address
// (a unix socket, a test's made-up address) is its own group.
func AddressGroup(addr string) string {
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return addr
	}
	a = a.Unmap().WithZone("")
	if a.Is4() {
		return a.String()
	}
	p, err := a.Prefix(64)
	if err != nil {
		return addr
	}
	return p.String()
}
