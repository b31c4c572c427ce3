package web_test

import (
	"github.com/PuerkitoBio/goquery"

	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/corrections"
	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/store"
)

// instalmentsSeed is a student with an Uang Pangkal of Rp 6.000.000 and an SPP.
func instalmentsSeed(t *testing.T, p *portaltest.Portal) (pangkal, spp1 billing.Bill) {
	t.Helper()
	bills := seedStudent(t, p, billing.Student{NIS: "2601", Name: "Budi Santoso", Description: "Kelas 7A"},
		billing.ComponentInput{AccountCode: "SPP", Name: "Uang Pangkal", Amount: 6_000_000, Penalty: 150_000,
			Due: utcDay(2026, 12, 10), Expiry: utcDay(2027, 1, 9), Notes: "TA 2026/2027"},
		spp("SPP Desember", 450_000, 25_000, utcDay(2026, 12, 10), utcDay(2027, 1, 31)))
	return bills[0], bills[1]
}

// parts lists the student page's rows of a split's parts, in the page's order.
func partRows(res *portaltest.Response) []string {
	var out []string
	res.Doc.Find(`tr.instalment-part [data-testid="bill-name"]`).Each(func(_ int, s *goquery.Selection) {
		out = append(out, strings.TrimSpace(s.Text()))
	})
	return out
}

func TestInstalmentSplitAndUndo(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: studentsNow})
	pangkal, _ := instalmentsSeed(t, p)
	c := p.SignedIn(t, "finance")
	ctx := context.Background()
	base := "/students/2601/components/" + pangkal.ComponentID + "/instalments"

	page := c.Get("/students/2601")
	href, _ := page.Doc.Find(`[data-testid="bill-row"][data-component="` + pangkal.ComponentID + `"] [data-testid="bill-split"]`).Attr("href")
	if href != base {
		t.Fatalf("split link %q", href)
	}
	res := c.Get(base)
	if res.StatusCode != http.StatusOK || svalue(res, "#f-first_due") != "2026-12-10" || stext(res, `[data-testid="instalments-amount"]`) != "Rp 6.000.000" {
		t.Fatalf("form: %d %q", res.StatusCode, svalue(res, "#f-first_due"))
	}

	// What is wrong is said beside its field, with what was typed kept.
	form := url.Values{"parts": {"13"}, "first_due": {"10/01/2027"}, "reason": {"permintaan orang tua"}}
	res = c.Post(base+"/preview", form)
	if res.StatusCode != http.StatusUnprocessableEntity || stext(res, `[data-testid="error-parts"]`) == "" || svalue(res, "#f-reason") != "permintaan orang tua" {
		t.Fatalf("13 parts: %d %q", res.StatusCode, stext(res, `[data-testid="error-parts"]`))
	}
	form.Set("parts", "3")
	form.Set("first_due", "31/02/2027")
	res = c.Post(base+"/preview", form, "HX-Request", "true")
	if res.StatusCode != http.StatusUnprocessableEntity || strings.Contains(res.Body, "<html") || svalue(res, "#f-first_due") != "31/02/2027" ||
		stext(res, `[data-testid="error-first_due"]`) == "" {
		t.Fatalf("bad first due (HTMX): %d %q", res.StatusCode, svalue(res, "#f-first_due"))
	}

	// The preview: three parts a month apart, Rp 2.000.000 each, adding up to the original.
	form.Set("first_due", "10/01/2027")
	res = c.Post(base+"/preview", form)
	if res.StatusCode != http.StatusOK || res.Doc.Find(`[data-testid="instalments-part"]`).Length() != 3 {
		t.Fatalf("preview: %d\n%s", res.StatusCode, stext(res, `[data-testid="instalments"]`))
	}
	var dues []string
	res.Doc.Find(`[data-testid="part-due"]`).Each(func(_ int, s *goquery.Selection) {
		v, _ := s.Attr("value")
		dues = append(dues, v)
	})
	if strings.Join(dues, " ") != "2027-01-10 2027-02-10 2027-03-10" || stext(res, `[data-testid="part-amount"]`) != "Rp 2.000.000Rp 2.000.000Rp 2.000.000" {
		t.Errorf("preview dues %v, amounts %q", dues, stext(res, `[data-testid="part-amount"]`))
	}

	// Dates typed out of order: the preview again, the typed dates kept, the wrong one said.
	form["due"] = []string{"2027-01-10", "2026-12-01", "2027-03-10"}
	form.Set("amount", "6000000")
	res = c.Post(base+"/confirm", form)
	if res.StatusCode != http.StatusUnprocessableEntity || stext(res, `[data-testid="error-due_2"]`) == "" ||
		svalue(res, "#f-due_2") != "2026-12-01" {
		t.Fatalf("dates out of order: %d %q", res.StatusCode, stext(res, `[data-testid="instalments"]`))
	}
	if got, _ := p.Billing.GetComponent(ctx, pangkal.ComponentID); got.State != billing.StateProvisioned {
		t.Fatalf("a refused form changed the service: %s", got.State)
	}

	// Confirmed: a correction job, then the parts grouped under the original's name.
	form["due"] = []string{"2027-01-10", "2027-02-15", "2027-03-10"}
	res = c.Post(base+"/confirm", form)
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/corrections/") {
		t.Fatalf("confirm: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	job := waitCorrection(t, c, res.Header.Get("Location"))
	if st, _ := job.Doc.Find(`[data-testid="correction-job"]`).Attr("data-state"); st != "done" ||
		!strings.Contains(stext(job, `[data-testid="correction-summary"]`), "Selesai") {
		t.Fatalf("job: %s %q", st, stext(job, `[data-testid="correction-summary"]`))
	}
	page = c.Get("/students/2601")
	if n := page.Doc.Find(`[data-testid="instalment-group"]`).Length(); n != 1 {
		t.Fatalf("%d groups on the student page", n)
	}
	if got := stext(page, `[data-testid="instalment-group-name"]`); got != "Uang Pangkal" {
		t.Errorf("group name %q", got)
	}
	if got := partRows(page); strings.Join(got, "|") != "Uang Pangkal, cicilan 1/3|Uang Pangkal, cicilan 2/3|Uang Pangkal, cicilan 3/3" {
		t.Errorf("parts on the page: %q", got)
	}
	if page.Doc.Find(`[data-component="`+pangkal.ComponentID+`"]`).Length() != 0 {
		t.Error("the original is still on the page")
	}
	if strings.Contains(page.Doc.Find(`[data-testid="bills-table"]`).Text(), "[cicilan") {
		t.Error("the page shows the instalment keys in the notes")
	}
	if got, _ := p.Billing.GetComponent(ctx, pangkal.ComponentID); got.State != billing.StateDeleted {
		t.Errorf("the original at the service: %s", got.State)
	}
	// The second part kept its typed day.
	var second billing.Bill
	for b, err := range p.Billing.AllForStudent(ctx, "2601", billing.Query{}) {
		if err != nil {
			t.Fatal(err)
		}
		if b.Name == "Uang Pangkal, cicilan 2/3" {
			second = b
		}
	}
	if second.Due.Format("2006-01-02") != "2027-02-15" || second.Amount != 2_000_000 || second.Penalty != 50_000 {
		t.Errorf("second part: %+v", second)
	}
	// A second split of the same original is refused with words.
	if res := c.Post(base+"/confirm", form); res.StatusCode != http.StatusConflict || stext(res, `[data-testid="instalments-refused"]`) == "" {
		t.Errorf("split again: %d", res.StatusCode)
	}
	entries, _, err := p.DB.ListAudit(ctx, store.AuditFilter{Action: "corrections.split", Limit: 10})
	if err != nil || len(entries) != 1 || entries[0].Args["parts"] != "3" || entries[0].Args["item"] != "Uang Pangkal" || entries[0].Args["nis"] != "2601" {
		t.Errorf("audit: %+v %v", entries, err)
	}

	// Undone: the confirmation, the reason required, then the original back as it was.
	undo, _ := page.Doc.Find(`[data-testid="instalment-undo"]`).Attr("href")
	if undo != "/students/2601/instalments/"+pangkal.ComponentID+"/undo" {
		t.Fatalf("undo link %q", undo)
	}
	res = c.Get(undo)
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(stext(res, `[data-testid="undo-parts"]`), "Uang Pangkal, cicilan 1/3") ||
		res.Doc.Find(`[data-testid="undo-parts"] li`).Length() != 3 {
		t.Fatalf("undo page: %d %s", res.StatusCode, stext(res, `[data-testid="instalments-undo"]`))
	}
	if res = c.Post(undo, url.Values{"reason": {" "}}); res.StatusCode != http.StatusUnprocessableEntity || stext(res, `[data-testid="error-reason"]`) == "" {
		t.Fatalf("undo without a reason: %d", res.StatusCode)
	}
	res = c.Post(undo, url.Values{"reason": {"orang tua membayar lunas"}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("undo: %d", res.StatusCode)
	}
	if job := waitCorrection(t, c, res.Header.Get("Location")); !strings.Contains(stext(job, `[data-testid="correction-summary"]`), "dibuat lagi") {
		t.Errorf("undo job: %q", stext(job, `[data-testid="correction-summary"]`))
	}
	page = c.Get("/students/2601")
	if page.Doc.Find(`[data-testid="instalment-group"]`).Length() != 0 || len(partRows(page)) != 0 {
		t.Error("the parts are still grouped on the page after the undo")
	}
	var restored *goquery.Selection
	page.Doc.Find(`[data-testid="bill-row"]`).Each(func(_ int, s *goquery.Selection) {
		if strings.TrimSpace(s.Find(`[data-testid="bill-name"]`).Text()) == "Uang Pangkal" {
			restored = s
		}
	})
	if restored == nil || strings.Join(strings.Fields(restored.Find(`[data-testid="bill-amount"]`).Text()), " ") != "Rp 6.000.000" ||
		restored.Find(`[data-testid="bill-split"]`).Length() != 1 ||
		!strings.Contains(restored.Text(), "TA 2026/2027") || strings.Contains(restored.Text(), "[cicilan") {
		t.Fatalf("restored original on the page: %v", restored != nil)
	}
	if res := c.Post(undo, url.Values{"reason": {"lagi"}}); res.StatusCode != http.StatusConflict {
		t.Errorf("second undo: %d", res.StatusCode)
	}
}

// A split one of whose parts is paid offers no undo, and says why.
func TestInstalmentUndoRefusedWhenPaid(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: studentsNow})
	pangkal, _ := instalmentsSeed(t, p)
	c := p.SignedIn(t, "finance")
	ctx := context.Background()
	base := "/students/2601/components/" + pangkal.ComponentID + "/instalments"
	res := c.Post(base+"/confirm", url.Values{"parts": {"2"}, "first_due": {"2026-12-10"}, "reason": {"cicil"}, "amount": {"6000000"}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("confirm: %d %s", res.StatusCode, stext(res, `[data-testid="instalments"]`))
	}
	waitCorrection(t, c, res.Header.Get("Location"))
	var first billing.Bill
	for b, err := range p.Billing.AllForStudent(ctx, "2601", billing.Query{}) {
		if err != nil {
			t.Fatal(err)
		}
		if k, ok := corrections.PartOf(b.Notes); ok && k.Part == 1 {
			first = b
		}
	}
	if _, err := p.Billing.Pay(ctx, billing.Payment{NIS: "2601", ComponentIDs: []string{first.ComponentID}}); err != nil {
		t.Fatal(err)
	}
	p.SyncLedger(t)
	page := c.Get("/students/2601")
	if page.Doc.Find(`[data-testid="instalment-undo"]`).Length() != 0 || !strings.Contains(stext(page, `[data-testid="instalment-undo-why"]`), "sudah dibayar") {
		t.Errorf("undo offered with a part paid: %q", stext(page, `[data-testid="instalment-group"]`))
	}
	undo := "/students/2601/instalments/" + pangkal.ComponentID + "/undo"
	if res := c.Get(undo); !strings.Contains(stext(res, `[data-testid="undo-refused"]`), first.Name) {
		t.Errorf("undo page: %q", stext(res, `[data-testid="instalments-undo"]`))
	}
	if res := c.Post(undo, url.Values{"reason": {"x"}}); res.StatusCode != http.StatusConflict {
		t.Errorf("undo posted: %d", res.StatusCode)
	}
}

// Principals read the student page but neither split nor undo nor set a status.
func TestInstalmentsAndStatusRoles(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: studentsNow})
	pangkal, _ := instalmentsSeed(t, p)
	c := p.SignedIn(t, "principal")
	page := c.Get("/students/2601")
	if page.StatusCode != http.StatusOK || page.Doc.Find(`[data-testid="bill-split"], [data-testid="student-status-edit"]`).Length() != 0 {
		t.Errorf("principal sees the split or the status form: %d", page.StatusCode)
	}
	base := "/students/2601/components/" + pangkal.ComponentID + "/instalments"
	undo := "/students/2601/instalments/" + pangkal.ComponentID + "/undo"
	for _, path := range []string{base, undo, "/students/2601/status", "/students/2601/leave"} {
		if res := c.Get(path); res.StatusCode != http.StatusForbidden {
			t.Errorf("principal GET %s: %d", path, res.StatusCode)
		}
	}
	posts := map[string]url.Values{
		base + "/preview":       {"parts": {"3"}, "first_due": {"2026-12-10"}, "reason": {"x"}},
		base + "/confirm":       {"parts": {"3"}, "first_due": {"2026-12-10"}, "reason": {"x"}, "amount": {"6000000"}},
		undo:                    {"reason": {"x"}},
		"/students/2601/status": {"status": {"left"}, "on": {"2026-11-01"}, "note": {"x"}},
		"/students/2601/leave":  {"reason": {"x"}},
	}
	for path, form := range posts {
		for _, hx := range []bool{false, true} {
			var headers []string
			if hx {
				headers = []string{"HX-Request", "true"}
			}
			if res := c.Post(path, form, headers...); res.StatusCode != http.StatusForbidden {
				t.Errorf("principal POST %s: %d", path, res.StatusCode)
			}
		}
	}
	if got, _ := p.Billing.GetComponent(context.Background(), pangkal.ComponentID); got.State != billing.StateProvisioned {
		t.Errorf("principal changed the component: %s", got.State)
	}
	if st, _ := p.DB.StudentByNIS(context.Background(), "2601"); st.Status != "active" {
		t.Errorf("principal changed the status: %s", st.Status)
	}
	// Admins may, as finance staff do.
	a := p.SignedIn(t, "admin")
	if res := a.Get(base); res.StatusCode != http.StatusOK {
		t.Errorf("admin split form: %d", res.StatusCode)
	}
	if res := a.Get("/students/2601/status"); res.StatusCode != http.StatusOK {
		t.Errorf("admin status form: %d", res.StatusCode)
	}
}
