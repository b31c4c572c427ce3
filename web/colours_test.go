package web_test

import (
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// TestOneColourPerMeaning: red (stat--danger) is late only — overdue, expired, the
// arrears they make — on the dashboard and on a student's page; what is simply unpaid
// this year is blue (stat--owed), never red. And one label per figure: the dashboard
// never says "sudah dibayar" beside "Diterima bulan ini".
func TestOneColourPerMeaning(t *testing.T) {
	t.Parallel()
	p, _ := reportsDemoPortal(t)
	c := p.SignedIn(t, "finance")
	dash := c.Get("/")
	if dash.StatusCode != http.StatusOK {
		t.Fatalf("GET / = %d", dash.StatusCode)
	}
	red := map[string]bool{}
	dash.Doc.Find(`.stat`).Each(func(_ int, s *goquery.Selection) {
		if s.HasClass("stat--danger") {
			red[s.AttrOr("data-testid", "?")] = true
		}
	})
	for _, id := range []string{"card-arrears", "card-overdue", "card-expired"} {
		if !red[id] {
			t.Errorf("dashboard %s is not red", id)
		}
		delete(red, id)
	}
	if len(red) != 0 {
		t.Errorf("red on the dashboard for what is not late: %v", red)
	}
	if body := rText(dash, "main"); strings.Contains(body, "sudah dibayar") || !strings.Contains(rText(dash, `[data-testid="card-rate"] .stat-sub`), "lunas") {
		t.Errorf("the dashboard's paid figures are not named apart: %q", rText(dash, `[data-testid="card-rate"] .stat-sub`))
	}

	// A student with something overdue: overdue and expired red, the year's unpaid blue.
	roster := c.Get("/students")
	href := roster.Doc.Find(`tr.is-overdue [data-testid="student-link"]`).First().AttrOr("href", "")
	if href == "" {
		t.Fatal("no student with something overdue in the demo school")
	}
	page := c.Get(href)
	class := func(id string) string { return page.Doc.Find(`[data-testid="`+id+`"]`).AttrOr("class", "") }
	if out := class("sum-outstanding"); strings.Contains(out, "stat--danger") || !strings.Contains(out, "stat--owed") {
		t.Errorf("a student's unpaid total is %q", out)
	}
	for _, id := range []string{"sum-overdue", "sum-expired"} {
		if !strings.Contains(class(id), "stat--danger") {
			t.Errorf("a student's %s is %q, not red", id, class(id))
		}
	}
	// And the stylesheet gives the two meanings two colours.
	css, err := os.ReadFile("../static/css/app.css")
	if err != nil {
		t.Fatal(err)
	}
	owed := regexp.MustCompile(`\.stat--owed\s*\{[^}]*border-left-color:\s*var\(--info\)`)
	danger := regexp.MustCompile(`\.stat--danger\s*\{[^}]*border-left-color:\s*var\(--danger\)`)
	if !owed.Match(css) || !danger.Match(css) {
		t.Error("app.css does not colour .stat--owed blue and .stat--danger red")
	}
}
