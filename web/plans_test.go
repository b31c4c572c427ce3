package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/chromedp/chromedp"
	"github.com/xuri/excelize/v2"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/plans"
	"github.com/sekolah/portal/internal/portaltest"
)

// plansNow is the day the plan tests run on: 1 July 2026, the school year's first day.
var plansNow = time.Date(2026, time.July, 1, 3, 0, 0, 0, time.UTC)

// plansSchool is a portal with classes 7A and 8A, three students each, known from the
// service (the roster's sync).
func plansSchool(t *testing.T) *portaltest.Portal {
	t.Helper()
	p := portaltest.Start(t, portaltest.Options{Now: plansNow})
	var list []billing.Student
	for ci, class := range []string{"Kelas 7A", "Kelas 8A"} {
		for i := range 3 {
			nis := fmt.Sprintf("0%d%03d", 7+ci, i)
			list = append(list, billing.Student{NIS: nis, Name: fmt.Sprintf("Siswa %s %d", class, i), Description: class})
		}
	}
	if _, err := p.Billing.CreateStudents(context.Background(), list); err != nil {
		t.Fatal(err)
	}
	p.SyncLedger(t)
	return p
}

// sppValues is the form of the school year's SPP: Rp 350.000, grade 8 at Rp 375.000.
func sppValues() url.Values {
	return url.Values{"name": {"SPP 2026/2027"}, "account_code": {"SPP"}, "amount": {"350.000"}, "penalty_amount": {"25.000"},
		"frequency": {"monthly"}, "from": {"2026-07"}, "to": {"2027-06"}, "due_day": {"10"}, "expiry_days": {"20"},
		"rate_for": {"8", ""}, "rate_amount": {"375.000", ""}}
}

// makePlan creates the plan of form as finance and returns its page's address.
func makePlan(t *testing.T, c *portaltest.Client, form url.Values) string {
	t.Helper()
	res := c.Post("/plans", form)
	loc := res.Header.Get("Location")
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/plans/") {
		t.Fatalf("create the plan: %d to %q: %s", res.StatusCode, loc, stext(res, `[data-testid="form-error"]`))
	}
	return loc
}

func TestPlanForms(t *testing.T) {
	t.Parallel()
	p := plansSchool(t)
	c := p.SignedIn(t, "finance")

	// A form that is wrong answers 422 with what was typed, each problem beside its field.
	bad := sppValues()
	bad.Set("amount", "tiga ratus")
	bad.Set("frequency", "weekly")
	bad.Set("to", "2026-05")
	bad["rate_amount"] = []string{"0", ""}
	res := c.Post("/plans", bad)
	if res.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("bad plan: %d", res.StatusCode)
	}
	for _, f := range []string{"amount", "frequency", "rate_amount.0"} {
		if stext(res, `[data-testid="error-`+f+`"]`) == "" {
			t.Errorf("no problem beside %s", f)
		}
	}
	if svalue(res, "#f-amount") != "tiga ratus" || svalue(res, "#f-name") != "SPP 2026/2027" || svalue(res, "#f-rate_for-0") != "8" {
		t.Fatalf("what was typed is not kept: %q %q %q", svalue(res, "#f-amount"), svalue(res, "#f-name"), svalue(res, "#f-rate_for-0"))
	}
	// Through HTMX only the form comes back.
	res = c.Post("/plans", bad, "HX-Request", "true")
	if res.StatusCode != http.StatusUnprocessableEntity || res.Doc.Find("title").Length() != 0 ||
		res.Doc.Find(`[data-testid="plan-form-card"]`).Length() != 1 {
		t.Fatalf("HTMX bad plan: %d, %d forms", res.StatusCode, res.Doc.Find(`[data-testid="plan-form-card"]`).Length())
	}

	page := makePlan(t, c, sppValues())
	res = c.Get(page)
	if got := stext(res, `[data-testid="plan-code"]`); got != "SPP2627" {
		t.Fatalf("code %q", got)
	}
	if n := res.Doc.Find(`[data-testid="plan-period"]`).Length(); n != 12 || !strings.Contains(stext(res, `[data-testid="plan-periods"]`), "SPP Juli 2026") {
		t.Fatalf("%d periods: %s", n, stext(res, `[data-testid="plan-periods"]`))
	}
	// A second plan with the same name gets a code of its own.
	if second := makePlan(t, c, sppValues()); !strings.Contains(stext(c.Get(second), `[data-testid="plan-code"]`), "SPP2627-2") {
		t.Fatalf("second code: %q", stext(c.Get(second), `[data-testid="plan-code"]`))
	}
	// A typed code that is taken is the form's problem.
	typed := sppValues()
	typed.Set("code", "spp2627")
	if res := c.Post("/plans", typed); res.StatusCode != http.StatusUnprocessableEntity || stext(res, `[data-testid="error-code"]`) == "" {
		t.Fatalf("taken code: %d", res.StatusCode)
	}

	// Applying to nobody, or to an unknown NIS, is the form's problem.
	res = c.Post(page+"/apply", url.Values{"from": {"2026-07"}, "to": {"2027-06"}})
	if res.StatusCode != http.StatusUnprocessableEntity || stext(res, `[data-testid="error-class"]`) == "" {
		t.Fatalf("apply to nobody: %d", res.StatusCode)
	}
	res = c.Post(page+"/apply", url.Values{"nis": {"07000 99999"}, "from": {"2026-07"}})
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(stext(res, `[data-testid="error-nis"]`), "99999") ||
		stext(res, `[data-testid="apply-nis"]`) != "07000 99999" {
		t.Fatalf("unknown NIS: %d %q", res.StatusCode, stext(res, `[data-testid="error-nis"]`))
	}

	// The preview, then its confirmation: a job whose page shows it done.
	res = c.Post(page+"/apply", url.Values{"class": {"Kelas 7A"}, "grade": {"8"}, "from": {"2026-07"}, "to": {"2026-12"}})
	if res.StatusCode != http.StatusOK || !strings.Contains(stext(res, `[data-testid="preview-summary"]`), "6 siswa: 36 tagihan baru") {
		t.Fatalf("preview: %d %q", res.StatusCode, stext(res, `[data-testid="preview-summary"]`))
	}
	action, _ := res.Doc.Find(`[data-testid="preview-confirm-form"]`).Attr("action")
	if !strings.HasSuffix(action, "/confirm") {
		t.Fatalf("the confirmation posts to %q", action)
	}
	confirm := url.Values{}
	res.Doc.Find(`[data-testid="preview-confirm-form"] input`).Each(func(_ int, s *goquery.Selection) {
		name, _ := s.Attr("name")
		value, _ := s.Attr("value")
		confirm.Add(name, value)
	})
	// A stale fingerprint shows the new preview instead (409).
	stale := url.Values{}
	for k, v := range confirm {
		stale[k] = v
	}
	stale.Set("fingerprint", "stale")
	if res := c.Post(action, stale); res.StatusCode != http.StatusConflict || stext(res, `[data-testid="preview-changed"]`) == "" {
		t.Fatalf("stale confirmation: %d", res.StatusCode)
	}
	res = c.Post(action, confirm)
	job := res.Header.Get("Location")
	if res.StatusCode != http.StatusSeeOther || !strings.Contains(job, "/jobs/") {
		t.Fatalf("confirmed to %q (%d)", job, res.StatusCode)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		res = c.Get(job)
		if st, _ := res.Doc.Find(`[data-testid="plan-job"]`).Attr("data-state"); st == "done" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the job did not end: %s", stext(res, `[data-testid="plan-job"]`))
		}
	}
	if stext(res, `[data-testid="plan-job-done"]`) != "36" || res.Doc.Find(`[data-testid="plan-job-undo"]`).Length() != 1 {
		t.Fatalf("job page: done %q", stext(res, `[data-testid="plan-job-done"]`))
	}
	// The undo needs a reason: 422 with the form again.
	if res := c.Post(job+"/undo", url.Values{"reason": {" "}}); res.StatusCode != http.StatusUnprocessableEntity || stext(res, `[data-testid="error-reason"]`) == "" {
		t.Fatalf("undo without a reason: %d", res.StatusCode)
	}
	// A grade-8 student's component at the service: the grade's price, named as bursars do.
	bills, err := p.Billing.StudentBills(context.Background(), "08001", billing.Query{})
	if err != nil || len(bills) != 6 {
		t.Fatalf("grade 8 student's bills: %d %v", len(bills), err)
	}
	for _, b := range bills {
		if b.Amount != 375_000 || !strings.HasPrefix(b.Name, "SPP ") {
			t.Fatalf("bill %s %d", b.Name, b.Amount)
		}
	}
}

func TestPlanRoles(t *testing.T) {
	t.Parallel()
	p := plansSchool(t)
	fin := p.SignedIn(t, "finance")
	page := makePlan(t, fin, sppValues())
	id := strings.TrimPrefix(page, "/plans/")
	if res := fin.Post("/students/07000/discounts", url.Values{"plan": {id}, "kind": {"percent"}, "value": {"50"}, "reason": {"sibling"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("grant: %d", res.StatusCode)
	}

	for _, who := range []string{"principal", "admin"} {
		c := p.SignedIn(t, who)
		for _, path := range []string{"/plans", page, page + "/kartu", page + "/kartu?class=Kelas+7A", page + "/kartu/07000",
			"/plans/candidates", "/students/07000/discounts", "/reports/discounts", "/reports/discounts?format=xlsx"} {
			if res := c.Get(path); res.StatusCode != http.StatusOK {
				t.Errorf("%s GET %s: %d", who, path, res.StatusCode)
			}
		}
		if res := c.Get("/"); res.Doc.Find(`[data-testid="nav-plans"]`).Length() != 1 {
			t.Errorf("%s has no navigation entry for plans", who)
		}
	}
	pr := p.SignedIn(t, "principal")
	for _, post := range []struct {
		path string
		form url.Values
	}{
		{"/plans", sppValues()},
		{page, sppValues()},
		{page + "/apply", url.Values{"class": {"Kelas 7A"}}},
		{page + "/apply/confirm", url.Values{"class": {"Kelas 7A"}}},
		{"/students/07000/discounts", url.Values{"kind": {"percent"}, "value": {"10"}, "reason": {"sibling"}}},
		{page + "/correct/confirm", url.Values{}},
	} {
		if res := pr.Post(post.path, post.form); res.StatusCode != http.StatusForbidden {
			t.Errorf("principal POST %s: %d, want 403", post.path, res.StatusCode)
		}
	}
	for _, path := range []string{"/plans/new", page + "/edit", page + "/correct"} {
		if res := pr.Get(path); res.StatusCode != http.StatusForbidden {
			t.Errorf("principal GET %s: %d, want 403", path, res.StatusCode)
		}
	}
	// The principal sees the discounts but not the form to grant one.
	if res := pr.Get("/students/07000/discounts"); res.Doc.Find(`[data-testid="discount-form"]`).Length() != 0 ||
		res.Doc.Find(`[data-testid="discount-row"]`).Length() != 1 {
		t.Errorf("principal's discounts page: form %d, rows %d", res.Doc.Find(`[data-testid="discount-form"]`).Length(),
			res.Doc.Find(`[data-testid="discount-row"]`).Length())
	}
	if res := fin.Get("/plans/nope"); res.StatusCode != http.StatusNotFound {
		t.Errorf("unknown plan: %d", res.StatusCode)
	}
	if res := fin.Get(page + "/kartu?class=Kelas+99"); res.StatusCode != http.StatusNotFound {
		t.Errorf("unknown class: %d", res.StatusCode)
	}
}

func TestDiscountForm(t *testing.T) {
	t.Parallel()
	p := plansSchool(t)
	c := p.SignedIn(t, "finance")
	page := makePlan(t, c, sppValues())
	id := strings.TrimPrefix(page, "/plans/")

	for _, bad := range []struct {
		form  url.Values
		field string
	}{
		{url.Values{"plan": {id}, "kind": {"percent"}, "value": {"120"}, "reason": {"sibling"}}, "value"},
		{url.Values{"plan": {id}, "kind": {"percent"}, "value": {"12,345"}, "reason": {"sibling"}}, "value"},
		{url.Values{"plan": {id}, "kind": {"amount"}, "value": {"-5"}, "reason": {"sibling"}}, "value"},
		{url.Values{"plan": {"nope"}, "kind": {"amount"}, "value": {"50.000"}, "reason": {"sibling"}}, "plan"},
		{url.Values{"kind": {"gratis"}, "value": {"1"}, "reason": {"sibling"}}, "kind"},
		{url.Values{"kind": {"percent"}, "value": {"10"}, "reason": {"other"}}, "note"},
		{url.Values{"kind": {"percent"}, "value": {"10"}}, "reason"},
	} {
		res := c.Post("/students/07000/discounts", bad.form)
		if res.StatusCode != http.StatusUnprocessableEntity || stext(res, `[data-testid="error-`+bad.field+`"]`) == "" {
			t.Errorf("%v: %d, no problem beside %s", bad.form, res.StatusCode, bad.field)
			continue
		}
		if got := svalue(res, "#f-value"); got != bad.form.Get("value") {
			t.Errorf("%v: value %q not kept", bad.form, got)
		}
	}
	// Words of its own as the reason: "other", with them as its note.
	if res := c.Post("/students/07000/discounts", url.Values{"kind": {"amount"}, "value": {"50.000"}, "reason": {"anak yatim"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("grant: %d", res.StatusCode)
	}
	res := c.Get("/students/07000/discounts")
	if !strings.Contains(stext(res, `[data-testid="discounts-table"]`), "anak yatim") {
		t.Fatalf("free text reason: %d %q", res.StatusCode, stext(res, `[data-testid="discounts-table"]`))
	}
	// Every grant is in the audit log, with its size and why.
	entries, err := p.DB.LatestAudit(context.Background(), "discounts.grant", "07000", "ok", 5)
	if err != nil || len(entries) != 1 || entries[0].Args["discount_amount"] != "50000" {
		t.Fatalf("audit: %+v %v", entries, err)
	}
}

func TestPlanExports(t *testing.T) {
	t.Parallel()
	p := plansSchool(t)
	c := p.SignedIn(t, "finance")
	page := makePlan(t, c, sppValues())
	id := strings.TrimPrefix(page, "/plans/")
	c.Post("/students/07000/discounts", url.Values{"plan": {id}, "kind": {"percent"}, "value": {"50"}, "reason": {"sibling"}})
	c.Post("/students/07001/discounts", url.Values{"kind": {"percent"}, "value": {"100"}, "reason": {"scholarship"}})
	applyPlan(t, p, id, "Kelas 7A")

	// CSV: a NIS keeps its leading zero when Excel opens it; both flavours.
	for format, sep := range map[string]string{"csv": ",", "csv-excel-id": ";"} {
		res := c.Get("/reports/discounts?format=" + format)
		if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/csv") {
			t.Fatalf("%s: %d %s", format, res.StatusCode, res.Header.Get("Content-Type"))
		}
		lines := strings.Split(strings.TrimPrefix(res.Body, "\ufeff"), "\r\n")
		if len(lines) != 1+24+1 || !strings.HasPrefix(lines[1], `"=""07000"""`+sep) {
			t.Fatalf("%s: %d lines, first %q", format, len(lines), lines[1])
		}
	}
	// .xlsx: the lines, the NIS a text cell, and the totals by reason and by class.
	res := c.Get("/reports/discounts?format=xlsx")
	f, err := excelize.OpenReader(strings.NewReader(res.Body))
	if err != nil {
		t.Fatal(err)
	}
	if sheets := f.GetSheetList(); len(sheets) != 3 {
		t.Fatalf("sheets %v", sheets)
	}
	rows, _ := f.GetRows(f.GetSheetName(0))
	var first []string
	for _, r := range rows {
		if len(r) > 0 && r[0] == "07000" {
			first = r
			break
		}
	}
	if first == nil || first[3] != "SPP Juli 2026" {
		t.Fatalf("xlsx rows: %v", rows[:min(len(rows), 8)])
	}
	byReason, _ := f.GetRows(f.GetSheetName(1))
	if !strings.Contains(fmt.Sprint(byReason), "Saudara kandung") || !strings.Contains(fmt.Sprint(byReason), "Beasiswa") {
		t.Fatalf("by reason: %v", byReason)
	}
	// The kartu of 7A as a file: a student a row, a month a column.
	res = c.Get(page + "/kartu?class=Kelas+7A&format=xlsx")
	if f, err = excelize.OpenReader(strings.NewReader(res.Body)); err != nil {
		t.Fatalf("kartu xlsx: %d %v", res.StatusCode, err)
	}
	rows, _ = f.GetRows(f.GetSheetName(0))
	var waived []string
	for _, r := range rows {
		if len(r) > 2 && r[0] == "07001" {
			waived = r
		}
	}
	if len(waived) < 14 || waived[2] != "Dibebaskan" || waived[13] != "Dibebaskan" {
		t.Fatalf("kartu's scholarship row: %v", waived)
	}
}

// applyPlan applies plan id to classes for its whole span, as finance, and waits for the
// job's end.
func applyPlan(t *testing.T, p *portaltest.Portal, id string, classes ...string) {
	t.Helper()
	ctx := context.Background()
	plan, err := p.App.Plans.Plan(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	pv, probs, err := p.App.Plans.Preview(ctx, plan, plans.Selection{Classes: classes, From: plan.From, To: plan.To})
	if err != nil || len(probs) > 0 {
		t.Fatalf("preview: %v %v", probs, err)
	}
	jid, err := p.App.Plans.Submit(ctx, auth.Actor{Username: "finance", Role: auth.Finance}, pv)
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if j, _ := p.App.Plans.Job(ctx, jid); !plans.Running(j.State) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the apply did not end")
		}
	}
}

// A month field says the month as the portal read it, like a date field: on the page the
// server answers (the plan form, what was typed kept) and, as a month is typed, in the
// browser (app.js), where a browser without month fields shows a text box.
func TestMonthFieldsSayTheMonthRead(t *testing.T) {
	t.Parallel()
	p := plansSchool(t)
	c := p.SignedIn(t, "finance")
	form := sppValues()
	form.Set("amount", "") // wrong: the form comes back with the months kept
	res := c.Post("/plans", form)
	if res.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("a plan without its amount: %d", res.StatusCode)
	}
	for id, want := range map[string]string{"f-from": "Dibaca: Jul 2026", "f-to": "Dibaca: Jun 2027"} {
		if got := stext(res, `[data-testid="date-echo-`+id+`"]`); got != want {
			t.Errorf("%s read as %q, want %q", id, got, want)
		}
	}

	b := p.NewBrowser(t)
	b.SignIn("finance", portaltest.Password)
	b.Visit("/plans/new")
	b.Do(chromedp.Evaluate[chromedp.Void](`(() => { const f = document.querySelector("#f-from");
		f.value = "2027-01"; f.dispatchEvent(new Event("input", {bubbles: true})); })()`))
	b.WaitText(`[data-testid="date-echo-f-from"]`, "Dibaca: Jan 2027")
}
