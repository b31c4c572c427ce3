package web

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

func TestSafeNext(t *testing.T) {
	t.Parallel()
	tests := []struct {
		next, want string
	}{
		// Kept: local paths, with queries and fragments.
		{"/", "/"},
		{"/students", "/students"},
		{"/audit?action=auth.signin&actor=siti", "/audit?action=auth.signin&actor=siti"},
		{"/students/123/edit#bills", "/students/123/edit#bills"},
		{"/reports/payments?from=2026-01-01", "/reports/payments?from=2026-01-01"},
		{"/students?q=siti+aminah", "/students?q=siti+aminah"}, // what a GET form sends
		{"/students?q=%C3%A9", "/students?q=%C3%A9"},
		// Refused: other hosts, schemes and the tricks browsers fold into them.
		{"", "/"},
		{"students", "/"},
		{"https://evil.example/", "/"},
		{"http:/evil.example", "/"},
		{"javascript:alert(1)", "/"},
		{"//evil.example", "/"},
		{"///evil.example", "/"},
		{"/\\evil.example", "/"},
		{"/\t/evil.example", "/"},
		{"/%09/evil.example", "/"},
		{"/%0b/evil.example", "/"},
		{"/%0c/evil.example", "/"},
		{"/%00/evil.example", "/"},
		{"/%0a/evil.example", "/"},
		{"/%0d%0a/evil.example", "/"},
		{"/%20/evil.example", "/"},
		{"/students?q=siti%20aminah", "/"}, // no byte <= 0x20 anywhere, decoded or not
		{"/%7f/evil.example", "/"},
		{"/%2f/evil.example", "/"},
		{"/%5cevil.example", "/"},
		{"/\x0b/evil.example", "/"},
		{"/\x00/evil.example", "/"},
		{"/\x7f/evil.example", "/"},
		{" /students", "/"},
		{"/students ", "/"},
		{"/students\r\nSet-Cookie: x=1", "/"},
		{"/%zz", "/"},
		{"/students%", "/"},
		{"/./\\evil.example", "/"}, // a browser reads it as "//evil.example"
		{"/.//evil.example", "/"},
		{"/students/../\\evil.example", "/"},
		{"/%2e/%5cevil.example", "/"},
		{"/students?q=../x", "/students?q=../x"}, // dots in a query are text
		// The sign-in page itself would loop.
		{"/login", "/"},
		{"/login?next=/audit", "/"},
	}
	for _, tt := range tests {
		if got := safeNext(tt.next); got != tt.want {
			t.Errorf("safeNext(%q) = %q, want %q", tt.next, got, tt.want)
		}
	}
}

// FuzzSafeNext checks that whatever safeNext lets through, a browser following the
// redirect stays on the portal: the Location header the portal sends, cleaned up the way
// browsers do (tabs and newlines dropped, backslashes read as slashes), resolves against
// the portal's origin to the portal's own host.
func FuzzSafeNext(f *testing.F) {
	for _, s := range []string{"/", "/students?q=a", "//evil.example", "/\\evil.example", "/%09/evil.example",
		"/\t/evil.example", "https://evil.example", "/%2f%2fevil.example", "/.//evil.example", "/..//evil.example",
		"/a/..//evil.example", "/\x00", "/%5c%5cevil.example", "/@evil.example", "/:@evil.example"} {
		f.Add(s)
	}
	h := &Handler{}
	base, _ := url.Parse("https://portal.example/some/page")
	f.Fuzz(func(t *testing.T, next string) {
		got := safeNext(next)
		r := httptest.NewRequest(http.MethodPost, "https://portal.example/login", nil)
		w := httptest.NewRecorder()
		h.redirect(w, r, got)
		loc := browserClean(w.Header().Get("Location"))
		ref, err := url.Parse(loc)
		if err != nil {
			t.Fatalf("safeNext(%q) = %q: Location %q does not parse: %v", next, got, loc, err)
		}
		if dest := base.ResolveReference(ref); dest.Scheme != "https" || dest.Host != "portal.example" {
			t.Fatalf("safeNext(%q) = %q: the browser lands on %s", next, got, dest)
		}
	})
}

// browserClean does to a Location what the WHATWG URL parser does before parsing a
// special (http, https) URL: strip leading and trailing C0 controls and spaces, remove
// every tab and newline, and read a backslash as a slash.
func browserClean(s string) string {
	s = strings.TrimFunc(s, func(r rune) bool { return r <= 0x20 })
	s = strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(s)
	return strings.ReplaceAll(s, "\\", "/")
}
