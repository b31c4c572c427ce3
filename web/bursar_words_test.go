package web_test

import (
	"strings"
	"testing"
)

// TestPagesInABursarsWords: the roster says where a student came from in a bursar's
// words (no "Sinkronisasi"), and no page a bursar reads every day says "rekening" (a
// bank account) for an account code or a statement.
func TestPagesInABursarsWords(t *testing.T) {
	t.Parallel()
	p, _ := reportsDemoPortal(t)
	c := p.SignedIn(t, "finance")
	roster := c.Get("/students")
	body := rText(roster, "main")
	if strings.Contains(body, "Sinkronisasi") || strings.Contains(body, "disinkronkan") {
		t.Errorf("the roster speaks of syncing:\n%s", body)
	}
	if !strings.Contains(rText(roster, `[data-testid="students-table"] tbody`), "Data layanan pembayaran") {
		t.Error("the roster does not say the students came from the payment service's records")
	}
	href := roster.Doc.Find(`[data-testid="student-link"]`).First().AttrOr("href", "")
	for _, path := range []string{href, "/bills", href + "/statement"} {
		if page := rText(c.Get(path), "main"); strings.Contains(strings.ToLower(page), "rekening") {
			t.Errorf("%s says 'rekening'", path)
		}
	}
}
