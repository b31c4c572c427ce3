package web

import (
	"net/url"
	"strings"
)

// maxNextLength bounds the path a sign-in carries along; longer is not a page of ours.
const maxNextLength = 2048

// safeNext keeps redirects after sign-in and language switches on this site: it returns
// next when it is a local path, else "/".
func safeNext(next string) string {
	if !localPath(next) || next == "/login" || strings.HasPrefix(next, "/login?") || strings.HasPrefix(next, "/login/") {
		return "/"
	}
	return next
}

// localPath reports whether s is a path on this site and nothing a browser could read as
// another host: it parses as a URL with no scheme, host or user, starts with exactly one
// "/" (not "//", not "/\"), has no "." or ".." segment, and has no byte ≤ 0x20 or 0x7f
// anywhere, neither raw nor percent-decoded. Browsers drop tabs and newlines from a
// Location and read "\" as "/", which is how "/%09/evil.example" used to land on
// evil.example.
func localPath(s string) bool {
	if s == "" || len(s) > maxNextLength || s[0] != '/' {
		return false
	}
	decoded, ok := percentDecode(s)
	if !ok {
		return false
	}
	for _, v := range []string{s, decoded} {
		for i := 0; i < len(v); i++ {
			if v[i] <= 0x20 || v[i] == 0x7f {
				return false
			}
		}
		if len(v) > 1 && (v[1] == '/' || v[1] == '\\') || hasDotSegment(v) {
			return false
		}
	}
	u, err := url.Parse(s)
	return err == nil && u.Scheme == "" && u.Host == "" && u.User == nil && u.Opaque == "" &&
		strings.HasPrefix(u.Path, "/")
}

// hasDotSegment reports whether the path part of v (before any query or fragment) has a
// "." or ".." segment, a backslash read as a slash: a browser removes them, and "/./\x"
// becomes "//x", a path that would name the host x wherever it is used again. The
// portal's own addresses have none.
func hasDotSegment(v string) bool {
	if i := strings.IndexAny(v, "?#"); i >= 0 {
		v = v[:i]
	}
	for _, seg := range strings.FieldsFunc(v, func(r rune) bool { return r == '/' || r == '\\' }) {
		if seg == "." || seg == ".." {
			return true
		}
	}
	return false
}

// percentDecode decodes every %XX (leaving '+' alone, as paths do); ok is false on a
// malformed escape.
func percentDecode(s string) (string, bool) {
	if !strings.Contains(s, "%") {
		return s, true
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", false
		}
		hi, ok1 := unhex(s[i+1])
		lo, ok2 := unhex(s[i+2])
		if !ok1 || !ok2 {
			return "", false
		}
		b.WriteByte(hi<<4 | lo)
		i += 2
	}
	return b.String(), true
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
