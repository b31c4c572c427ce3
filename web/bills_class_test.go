package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/portaltest"
)

// The bills list filters by class (the roster's classes, in their natural order), and a
// bulk correction of "SPP, class 7A, unpaid" selects exactly that class's bills.
func TestBillsClassFilter(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: studentsNow})
	for i, class := range []string{"Kelas 7A", "Kelas 7A", "Kelas 10A", "Kelas 8B"} {
		nis := fmt.Sprintf("280%d", i)
		seedStudent(t, p, billing.Student{NIS: nis, Name: "Siswa " + nis, Description: class},
			billing.ComponentInput{AccountCode: "SPP", Name: "SPP Januari", Amount: 450_000, Due: utcDay(2027, 1, 10), Expiry: utcDay(2027, 3, 31)},
			billing.ComponentInput{AccountCode: "BCA", Name: "Buku", Amount: 200_000, Due: utcDay(2027, 1, 10), Expiry: utcDay(2027, 3, 31)})
	}
	p.SyncLedger(t)
	c := p.SignedIn(t, "finance")

	res := c.Get("/bills")
	var options []string
	res.Doc.Find(`[data-testid="bills-class"] option`).Each(func(_ int, s *goquery.Selection) {
		options = append(options, s.Text())
	})
	if got := strings.Join(options, "|"); got != "Semua kelas|Kelas 7A|Kelas 8B|Kelas 10A" {
		t.Errorf("class choices %q", got)
	}

	filter := url.Values{"class": {"Kelas 7A"}, "account": {"SPP"}}
	res = c.Get("/bills?" + filter.Encode())
	if res.StatusCode != http.StatusOK {
		t.Fatalf("filtered list: %d", res.StatusCode)
	}
	if got := stext(res, `[data-testid="bills-count"]`); got != "2 tagihan" {
		t.Errorf("count %q", got)
	}
	res.Doc.Find(`[data-testid="bill-row"]`).Each(func(_ int, s *goquery.Selection) {
		if txt := s.Text(); !strings.Contains(txt, "2800") && !strings.Contains(txt, "2801") {
			t.Errorf("a row of another class: %q", strings.Join(strings.Fields(txt), " "))
		}
	})
	if sel, _ := res.Doc.Find(`[data-testid="bills-class"] option[selected]`).Attr("value"); sel != "Kelas 7A" {
		t.Errorf("the chosen class is not kept: %q", sel)
	}
	href, _ := res.Doc.Find(`[data-testid="bulk-correct"]`).Attr("href")
	if !strings.Contains(href, "class=Kelas+7A") {
		t.Fatalf("bulk correction link loses the class: %q", href)
	}
	if got := stext(c.Get(href), `[data-testid="bulk-selection"]`); !strings.Contains(got, "2 tagihan") {
		t.Errorf("bulk selection %q", got)
	}

	// A class nobody is in: nothing, said plainly; an overlong one: a problem, not a query.
	if got := stext(c.Get("/bills?class=Kelas+12Z"), `[data-testid="bills-count"]`); got != "0 tagihan" {
		t.Errorf("unknown class count %q", got)
	}
	if res := c.Get("/bills?class=" + strings.Repeat("x", 101)); stext(res, `[data-testid="error-class"]`) == "" {
		t.Errorf("overlong class: %d, no problem shown", res.StatusCode)
	}
}
