package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/portaltest"
)

// numbers reads the grouped whole numbers of a text in order ("Rp 1.350.000 · 7 siswa"
// gives 1350000, 7): both languages group with a dot.
func numbers(t *testing.T, text string) []int64 {
	t.Helper()
	var out []int64
	for _, m := range regexp.MustCompile(`\d{1,3}(?:\.\d{3})*`).FindAllString(text, -1) {
		n, err := strconv.ParseInt(strings.ReplaceAll(m, ".", ""), 10, 64)
		if err != nil {
			t.Fatalf("%q in %q: %v", m, text, err)
		}
		out = append(out, n)
	}
	return out
}

// figure is the first number of the text of sel in res; the test fails when there is none.
func figure(t *testing.T, res *portaltest.Response, sel string) int64 {
	t.Helper()
	return nth(t, res, sel, 0)
}

// nth is the i-th number of the text of sel in res.
func nth(t *testing.T, res *portaltest.Response, sel string, i int) int64 {
	t.Helper()
	text := strings.TrimSpace(res.Doc.Find(sel).First().Text())
	n := numbers(t, text)
	if len(n) <= i {
		t.Fatalf("%s: no figure %d in %q", sel, i, text)
	}
	return n[i]
}

// TestGlossaryOneSetPerTerm: on the demo school, in both languages, every page that
// names a set of bills with a glossary word ("Belum dibayar", "Belum jatuh tempo",
// "Terlambat", "Kedaluwarsa") shows the figures of the same set: the dashboard's, the
// roster's columns added up over every page, the outstanding report's totals, the bills
// list's expired tab and a student's page. Unpaid is not yet due plus overdue; expired
// is neither; the arrears report's default is the overdue ones.
func TestGlossaryOneSetPerTerm(t *testing.T) {
	t.Parallel()
	p, _ := reportsDemoPortal(t)
	for _, lang := range []i18n.Lang{i18n.Indonesian, i18n.English} {
		t.Run(string(lang), func(t *testing.T) {
			c := p.SignedIn(t, "finance")
			c.Post("/lang", url.Values{"lang": {string(lang)}, "next": {"/"}})
			tr := i18n.Printer{Lang: lang}.T

			dash := c.Get("/")
			if dash.StatusCode != http.StatusOK {
				t.Fatalf("GET / = %d", dash.StatusCode)
			}
			labels := map[string]string{"card-overdue": "term.overdue", "card-outstanding": "term.unpaid",
				"card-not-due": "term.not_due", "card-expired": "term.expired"}
			for id, key := range labels {
				if got := rText(dash, `[data-testid="`+id+`"] .stat-label`); got != tr(key) {
					t.Errorf("dashboard %s is labelled %q, the glossary says %q", id, got, tr(key))
				}
			}
			val := func(id string) int64 { return figure(t, dash, `[data-testid="`+id+`"] [data-testid="value"]`) }
			sub := func(id string, i int) int64 { return nth(t, dash, `[data-testid="`+id+`"] .stat-sub`, i) }
			overdue, unpaid, notDue, expired := val("card-overdue"), val("card-outstanding"), val("card-not-due"), val("card-expired")
			overdueStudents, overdueItems := sub("card-overdue", 0), sub("card-overdue", 1)
			unpaidItems, notDueItems, expiredItems := sub("card-outstanding", 0), sub("card-not-due", 0), sub("card-expired", 1)
			// Arrears are the overdue and the expired together, each named apart in its line.
			if got := rText(dash, `[data-testid="card-arrears"] .stat-label`); got != tr("term.arrears") {
				t.Errorf("dashboard arrears is labelled %q", got)
			}
			if arrears := val("card-arrears"); arrears != overdue+val("card-expired") ||
				sub("card-arrears", 1) != overdue || sub("card-arrears", 2) != val("card-expired") {
				t.Errorf("dashboard arrears %d (%s) is not overdue %d + expired %d", arrears,
					rText(dash, `[data-testid="card-arrears"] .stat-sub`), overdue, val("card-expired"))
			}
			if overdue == 0 || notDue == 0 || expired == 0 {
				t.Fatalf("the demo school should owe in every set: overdue %d, not due %d, expired %d", overdue, notDue, expired)
			}
			if unpaid != notDue+overdue || unpaidItems != notDueItems+overdueItems {
				t.Errorf("dashboard: unpaid %d (%d items) is not not-due %d (%d) + overdue %d (%d)",
					unpaid, unpaidItems, notDue, notDueItems, overdue, overdueItems)
			}

			// The roster: its columns are headed with the glossary's words and add up to
			// the dashboard's unpaid amount and overdue items, over every page.
			var rosterUnpaid, rosterOverdueItems, rosterOverdueStudents int64
			rosterUnpaidOf := map[string]int64{}
			for offset := 0; ; offset += 50 {
				res := c.Get("/students?offset=" + strconv.Itoa(offset))
				rows := res.Doc.Find(`[data-testid="students-table"] tbody tr`)
				if offset == 0 {
					heads := res.Doc.Find(`[data-testid="students-table"] thead th`).Map(func(_ int, s *goquery.Selection) string { return strings.TrimSpace(s.Text()) })
					if !strings.Contains(strings.Join(heads, "|"), "|"+tr("term.unpaid")+"|"+tr("term.overdue")+"|") {
						t.Errorf("roster columns %q: want %q then %q", heads, tr("term.unpaid"), tr("term.overdue"))
					}
				}
				if rows.Length() == 0 {
					break
				}
				rows.Each(func(_ int, r *goquery.Selection) {
					nis, _ := r.Attr("data-testid")
					amount := numbers(t, r.Find(`[data-testid="student-outstanding"]`).Text())
					late := numbers(t, r.Find(`[data-testid="student-overdue"]`).Text())
					if len(amount) != 1 || len(late) != 1 {
						t.Fatalf("roster row %s: unpaid %v overdue %v", nis, amount, late)
					}
					rosterUnpaid += amount[0]
					rosterUnpaidOf[strings.TrimPrefix(nis, "student-")] = amount[0]
					rosterOverdueItems += late[0]
					if late[0] > 0 {
						rosterOverdueStudents++
					}
				})
			}
			if rosterUnpaid != unpaid || rosterOverdueItems != overdueItems || rosterOverdueStudents != overdueStudents {
				t.Errorf("roster: unpaid %d, overdue %d items of %d students; dashboard: %d, %d items of %d students",
					rosterUnpaid, rosterOverdueItems, rosterOverdueStudents, unpaid, overdueItems, overdueStudents)
			}

			// The outstanding report: all unpaid (all=1, however its default reads), and of
			// them those due before today.
			all := c.Get("/reports/outstanding?all=1")
			if got := figure(t, all, `[data-testid="outstanding-total"]`); got != unpaid {
				t.Errorf("outstanding report, all unpaid: %d, dashboard unpaid %d", got, unpaid)
			}
			// Where the report shows expired bills in their own figure, it is the same set.
			if all.Doc.Find(`[data-testid="outstanding-expired-total"]`).Length() > 0 {
				if got := figure(t, all, `[data-testid="outstanding-expired-total"]`); got != expired {
					t.Errorf("outstanding report, expired: %d, dashboard expired %d", got, expired)
				}
			}
			if got := figure(t, c.Get("/reports/outstanding?all=1&due_to=2027-03-14"), `[data-testid="outstanding-total"]`); got != overdue {
				t.Errorf("outstanding report, due before today: %d, dashboard overdue %d", got, overdue)
			}
			// The arrears report's default is the overdue ones: its total, students and items
			// are the dashboard's "Terlambat".
			late := c.Get("/reports/outstanding")
			sel := `[data-testid="outstanding-summary"]`
			if got := [3]int64{nth(t, late, sel, 0), nth(t, late, sel, 1), nth(t, late, sel, 2)}; got != [3]int64{overdue, overdueStudents, overdueItems} {
				t.Errorf("arrears report: %d of %d students in %d items; dashboard overdue %d of %d students in %d items",
					got[0], got[1], got[2], overdue, overdueStudents, overdueItems)
			}
			// The bills list's expired tab.
			if got := figure(t, c.Get("/bills?state=expired"), `[data-testid="bills-count"]`); got != expiredItems {
				t.Errorf("bills list: %d expired, dashboard %d", got, expiredItems)
			}

			// The student with the largest arrears: their page's overdue is the
			// dashboard's arrears row and their unpaid is the roster's.
			href, _ := dash.Doc.Find(`[data-testid="top-arrears"] [data-testid="arrears-student"]`).First().Attr("href")
			arrears := figure(t, dash, `[data-testid="top-arrears"] tbody tr:first-child td.num`)
			st := c.Get(href)
			for id, key := range map[string]string{"sum-outstanding": "term.unpaid", "sum-unpaid": "term.not_due",
				"sum-overdue": "term.overdue", "sum-expired": "term.expired"} {
				if got := rText(st, `[data-testid="`+id+`"] .stat-label`); got != tr(key) {
					t.Errorf("student page %s is labelled %q, the glossary says %q", id, got, tr(key))
				}
			}
			stVal := func(id string) int64 { return figure(t, st, `[data-testid="`+id+`"] .stat-value`) }
			if got := stVal("sum-overdue"); got != arrears {
				t.Errorf("student %s: overdue %d, the dashboard's arrears %d", href, got, arrears)
			}
			nis := strings.TrimPrefix(href, "/students/")
			if got := stVal("sum-outstanding"); got != rosterUnpaidOf[nis] || got != stVal("sum-unpaid")+stVal("sum-overdue") {
				t.Errorf("student %s: unpaid %d, roster %d, not due %d + overdue %d",
					nis, got, rosterUnpaidOf[nis], stVal("sum-unpaid"), stVal("sum-overdue"))
			}
		})
	}
}
