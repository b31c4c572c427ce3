package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sekolah/portal/internal/portaltest"
)

// TestLongSearchesAreSaidInPlace: a search of 50,000 characters (SQLite's "pattern too
// complex" once: a 500 on the students, a 502 at the counter) is answered with the page
// and a message beside the search in the person's language, what was typed cut to the
// 200 characters a search may have; nothing is searched for. A search of 200 works.
func TestLongSearchesAreSaidInPlace(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: reportsNow, Demo: true}) // a roster to search
	c := p.SignedIn(t, "finance")
	long := strings.Repeat("a", 50_000)
	for _, tc := range []struct {
		path, sel string
	}{
		{"/students/?q=" + long, `[data-testid="students-search-error"]`},
		{"/payments/new?q=" + long, `[data-testid="payment-search-error"]`},
	} {
		for _, hx := range []bool{false, true} {
			var res *portaltest.Response
			if hx {
				res = c.Get(tc.path, "HX-Request", "true")
			} else {
				res = c.Get(tc.path)
			}
			if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(text(res, tc.sel), "200") {
				t.Fatalf("%s (htmx %t): %d %q", tc.path[:20], hx, res.StatusCode, text(res, tc.sel))
			}
			if q, ok := res.Doc.Find(`input[name="q"]`).Attr("value"); ok && utf8.RuneCountInString(q) != 200 {
				t.Errorf("%s: the search box holds %d characters", tc.path[:20], utf8.RuneCountInString(q))
			}
		}
	}
	// In English too, and a search of 200 characters is made.
	c.Post("/lang", url.Values{"lang": {"en"}, "next": {"/students"}})
	if res := c.Get("/students/?q=" + long); !strings.Contains(text(res, `[data-testid="students-search-error"]`), "at most 200 characters") {
		t.Fatalf("English: %q", text(res, `[data-testid="students-search-error"]`))
	}
	for _, path := range []string{"/students/?q=", "/payments/new?q="} {
		if res := c.Get(path + strings.Repeat("b", 200)); res.StatusCode != http.StatusOK {
			t.Errorf("%s200 characters: %d", path, res.StatusCode)
		}
	}
}
