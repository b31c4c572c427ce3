package web_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/changes"
	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/registration"
	"github.com/sekolah/portal/internal/sandbox"
	"github.com/sekolah/portal/internal/store"
)

// regNow is 10:00 in Jakarta on 22 Nov 2026: registrations made now are on that day.
var regNow = time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)

// regLines are the rows of the test template: name, account, amount, penalty, due, expiry,
// optional, description.
var regLines = [][8]string{
	{"Uang Pangkal", "SPP", "5.000.000", "100000", "+14", "+60", "", "Sekali bayar"},
	{"Seragam", "BCA", "750000", "", "2027-01-10", "28-02-2027", "1", ""},
	{"Buku", "MANDIRI", "Rp 400.000", "25000", "0", "30", "1", ""},
}

func templateForm(name string, lines [][8]string) url.Values {
	f := url.Values{"name": {name}, "rows": {strconv.Itoa(len(lines) + 1)}}
	for i, l := range lines {
		for j, part := range []string{"name", "account", "amount", "penalty", "due", "expiry", "optional", "description"} {
			if l[j] != "" {
				f.Set("line"+strconv.Itoa(i)+"_"+part, l[j])
			}
		}
	}
	f.Set("line"+strconv.Itoa(len(lines))+"_account", "SPP") // the spare row, as a browser sends it
	return f
}

// createTemplate adds the test template through the admin's form and returns it.
func createTemplate(t *testing.T, p *portaltest.Portal, admin *portaltest.Client, name string) store.FeeTemplate {
	t.Helper()
	if res := admin.Post("/settings/fee-templates", templateForm(name, regLines)); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("create template: %d\n%s", res.StatusCode, res.Body)
	}
	list, err := p.DB.ListFeeTemplates(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, tpl := range list {
		if tpl.Name == name {
			return tpl
		}
	}
	t.Fatalf("template %q not stored", name)
	return store.FeeTemplate{}
}

func text(res *portaltest.Response, sel string) string {
	return strings.TrimSpace(res.Doc.Find(sel).First().Text())
}

func value(res *portaltest.Response, name string) string {
	v, _ := res.Doc.Find(`[name="` + name + `"]`).First().Attr("value")
	return v
}

func auditEntries(t *testing.T, p *portaltest.Portal, action string) []store.AuditEntry {
	t.Helper()
	entries, _, err := p.DB.ListAudit(t.Context(), store.AuditFilter{Action: action, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

func student(nis string) url.Values {
	return url.Values{"nis": {nis}, "name": {"Rina  Wulandari"}, "phone": {"0812-3456-7890"}, "email": {"rina@example.id"}, "description": {"Kelas 7A"}}
}

func with(f url.Values, kv ...string) url.Values {
	out := url.Values{}
	for k, v := range f {
		out[k] = append([]string(nil), v...)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out.Set(kv[i], kv[i+1])
	}
	return out
}

func TestFeeTemplatesManage(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: regNow})
	admin := p.SignedIn(t, "admin")

	res := admin.Get("/settings/fee-templates")
	if res.StatusCode != http.StatusOK || res.Doc.Find(`[data-testid="fee-templates-empty"]`).Length() != 1 {
		t.Fatalf("empty list: %d", res.StatusCode)
	}
	res = admin.Get("/settings/fee-templates/new")
	if n := res.Doc.Find(`[data-testid="fee-template-lines"] tbody tr`).Length(); res.StatusCode != http.StatusOK || n != 3 {
		t.Fatalf("new form: %d with %d rows", res.StatusCode, n)
	}

	// Mistakes come back beside their cells, with everything typed kept.
	bad := templateForm("Pendaftaran SMP 2027", [][8]string{
		{"Uang Pangkal", "SPP", "lima juta", "", "+14", "+60", "", ""},
		{"Seragam", "BNI", "750000", "", "+61", "+60", "1", ""},
	})
	res = admin.Post("/settings/fee-templates", bad)
	if res.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("invalid create: %d", res.StatusCode)
	}
	for sel, want := range map[string]string{
		`[data-testid="error-line0_amount"]`:  "rupiah",
		`[data-testid="error-line1_account"]`: "Kode akun tidak dikenal",
		`[data-testid="error-line1_due"]`:     "kedaluwarsa",
	} {
		if got := text(res, sel); !strings.Contains(got, want) {
			t.Errorf("%s = %q, want %q", sel, got, want)
		}
	}
	if value(res, "line0_amount") != "lima juta" || value(res, "name") != "Pendaftaran SMP 2027" ||
		res.Doc.Find(`[name="line1_optional"][checked]`).Length() != 1 {
		t.Fatal("typed values lost")
	}
	// Over HTMX only the form comes back; "more rows" adds empty rows and saves nothing.
	res = admin.Post("/settings/fee-templates", bad, "HX-Request", "true")
	if res.StatusCode != http.StatusUnprocessableEntity || strings.Contains(res.Body, "<html") || res.Doc.Find("#fee-template-form").Length() != 1 {
		t.Fatalf("HTMX invalid create: %d\n%s", res.StatusCode, res.Body)
	}
	res = admin.Post("/settings/fee-templates", with(bad, "more", "1"))
	if n := res.Doc.Find(`[data-testid="fee-template-lines"] tbody tr`).Length(); res.StatusCode != http.StatusOK || n != 6 {
		t.Fatalf("more rows: %d with %d rows", res.StatusCode, n)
	}

	tpl := createTemplate(t, p, admin, "Pendaftaran SMP 2027")
	if len(tpl.Lines) != 3 || tpl.Total() != 6_150_000 || !tpl.Lines[1].Optional || tpl.Lines[0].Due != (store.DayRule{Offset: 14}) ||
		!tpl.Lines[1].Expiry.Fixed.Equal(time.Date(2027, 2, 28, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("stored template = %+v", tpl)
	}
	res = admin.Get("/settings/fee-templates")
	if !strings.Contains(text(res, `[data-testid="flash"]`), "Pendaftaran SMP 2027") ||
		!strings.Contains(text(res, `[data-testid="fee-template-`+tpl.ID+`"]`), "Rp\u00a06.150.000") {
		t.Fatalf("list after create:\n%s", res.Body)
	}
	if res := admin.Post("/settings/fee-templates", templateForm("pendaftaran smp 2027", regLines)); !strings.Contains(text(res, `[data-testid="error-name"]`), "sudah dipakai") {
		t.Fatalf("duplicate name: %d", res.StatusCode)
	}

	// Edit shows the stored lines the way they were typed, and saves changes.
	res = admin.Get("/settings/fee-templates/" + tpl.ID)
	if value(res, "line0_due") != "+14" || value(res, "line1_expiry") != "2027-02-28" || value(res, "line2_amount") != "400000" {
		t.Fatalf("edit form: due %q expiry %q amount %q", value(res, "line0_due"), value(res, "line1_expiry"), value(res, "line2_amount"))
	}
	edited := slices.Clone(regLines)
	edited[0][2] = "5500000"
	if res := admin.Post("/settings/fee-templates/"+tpl.ID, templateForm("Pendaftaran SMP 2027", edited[:2])); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("update: %d\n%s", res.StatusCode, res.Body)
	}
	if got, _ := p.DB.FeeTemplate(t.Context(), tpl.ID); len(got.Lines) != 2 || got.Total() != 6_250_000 {
		t.Fatalf("after update: %+v", got)
	}
	if res := admin.Get("/settings/fee-templates/nope"); res.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown template: %d", res.StatusCode)
	}

	// The public form's template cannot be deleted; once the form is off it can.
	if res := admin.Post("/settings/registration", url.Values{"enabled": {"1"}, "template": {tpl.ID}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("enable public form: %d", res.StatusCode)
	}
	admin.Post("/settings/fee-templates/"+tpl.ID+"/delete", confirmYes())
	if res := admin.Get("/settings/fee-templates"); !strings.Contains(text(res, `[data-testid="flash"]`), "formulir pendaftaran online") ||
		res.Doc.Find(`[data-testid="public-badge"]`).Length() != 1 {
		t.Fatalf("delete of the public form's template not refused:\n%s", res.Body)
	}
	admin.Post("/settings/registration", url.Values{"template": {tpl.ID}})
	if res := admin.Post("/settings/fee-templates/"+tpl.ID+"/delete", confirmYes()); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete: %d", res.StatusCode)
	}
	if _, err := p.DB.FeeTemplate(t.Context(), tpl.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("template still there: %v", err)
	}

	for action, n := range map[string]int{"settings.fee_template.create": 1, "settings.fee_template.update": 1,
		"settings.fee_template.delete": 1, "settings.registration.update": 2} {
		if got := len(auditEntries(t, p, action)); got != n {
			t.Errorf("%s audited %d times, want %d", action, got, n)
		}
	}
}

// One phone rule for every form: the wizard once took "123456", which the student's edit
// form then refused, so a student registered that way could not be edited. Now the
// wizard refuses it too, and a phone it takes (in any spelling) the edit form takes back.
func TestRegisteredStudentCanBeEdited(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: regNow})
	tpl := createTemplate(t, p, p.SignedIn(t, "admin"), "Pendaftaran SMP 2027")
	c := p.SignedIn(t, "finance")

	res := c.Post("/registrations/new", with(student("2027050"), "phone", "123456", "template", tpl.ID, "action", "next"))
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(text(res, `[data-testid="error-phone"]`), "0812-3456-7890") ||
		value(res, "phone") != "123456" {
		t.Fatalf("wizard with phone 123456: %d, error %q, value %q", res.StatusCode, text(res, `[data-testid="error-phone"]`), value(res, "phone"))
	}

	res = c.Post("/registrations/new", with(student("2027050"), "phone", "62 812 3456 7890", "template", tpl.ID, "action", "next"))
	fp := value(res, "fingerprint")
	res = c.Post("/registrations/new", with(student("2027050"), "phone", value(res, "phone"), "template", tpl.ID, "fingerprint", fp, "action", "confirm"))
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("confirm: %d\n%s", res.StatusCode, res.Body)
	}
	st, err := p.DB.StudentByNIS(t.Context(), "2027050")
	if err != nil || st.Phone != "+6281234567890" {
		t.Fatalf("roster: %+v %v", st, err)
	}

	// The edit form, sent back as it comes, is accepted.
	res = c.Get("/students/2027050/edit")
	form := url.Values{}
	for _, f := range []string{"name", "key_name", "phone", "email", "description"} {
		sel := `[name="` + f + `"]`
		v, ok := res.Doc.Find(sel).First().Attr("value")
		if !ok { // a select
			v = res.Doc.Find(sel+` option[selected]`).AttrOr("value", "")
		}
		form.Set(f, v)
	}
	if form.Get("phone") != "+6281234567890" {
		t.Fatalf("edit form phone = %q", form.Get("phone"))
	}
	res = c.Post("/students/2027050/edit", form)
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("editing the registered student as it is: %d, phone error %q", res.StatusCode, text(res, `[data-testid="error-phone"]`))
	}
}

func TestRegistrationWizard(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: regNow})
	tpl := createTemplate(t, p, p.SignedIn(t, "admin"), "Pendaftaran SMP 2027")
	c := p.SignedIn(t, "finance")

	res := c.Get("/registrations/new")
	if res.StatusCode != http.StatusOK || res.Doc.Find(`[data-testid="registration-wizard"][data-step="1"]`).Length() != 1 ||
		res.Doc.Find(`select[name="template"] option[value="`+tpl.ID+`"]`).Length() != 1 {
		t.Fatalf("step 1: %d\n%s", res.StatusCode, res.Body)
	}
	if res.Doc.Find(`[data-testid="nav-registration"][aria-current="page"]`).Length() != 1 {
		t.Fatal("nav item not current")
	}

	// Mistakes keep every value and say what is wrong beside each field.
	res = c.Post("/registrations/new", with(url.Values{"nis": {"2027 001"}, "name": {""}, "email": {"rina@"}, "phone": {"0812"},
		"description": {"Kelas 7A"}, "template": {tpl.ID}}, "action", "next"))
	if res.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("invalid step 1: %d", res.StatusCode)
	}
	for _, f := range []string{"nis", "name", "email"} {
		if text(res, `[data-testid="error-`+f+`"]`) == "" {
			t.Errorf("no error for %s", f)
		}
	}
	if value(res, "nis") != "2027 001" || value(res, "email") != "rina@" || value(res, "description") != "Kelas 7A" ||
		res.Doc.Find(`select[name="template"] option[selected]`).AttrOr("value", "") != tpl.ID {
		t.Fatal("typed values lost")
	}

	// Step 2 reviews the bill computed from the template for today, everything ticked.
	res = c.Post("/registrations/new", with(student("2027001"), "template", tpl.ID, "action", "next"))
	if res.StatusCode != http.StatusOK || res.Doc.Find(`[data-testid="registration-wizard"][data-step="2"]`).Length() != 1 {
		t.Fatalf("step 2: %d\n%s", res.StatusCode, res.Body)
	}
	if got := text(res, `[data-testid="review-total"]`); got != "Rp\u00a06.150.000" {
		t.Fatalf("total = %q", got)
	}
	uang := text(res, `[data-testid="review-line-`+tpl.Lines[0].ID+`"]`)
	if !strings.Contains(uang, "6 Des 2026") || !strings.Contains(uang, "21 Jan 2027") || !strings.Contains(uang, "Rp\u00a0100.000") {
		t.Fatalf("Uang Pangkal row = %q", uang)
	}
	if n := res.Doc.Find(`input[name="include"][checked]`).Length(); n != 2 {
		t.Fatalf("%d optional lines ticked, want 2", n)
	}
	if value(res, "name") != "Rina Wulandari" || value(res, "nis") != "2027001" {
		t.Fatal("step 1 answers not carried")
	}
	fp := value(res, "fingerprint")

	// Unticking Seragam and recalculating; back keeps the answers.
	base := with(student("2027001"), "template", tpl.ID, "step", "2", "fingerprint", fp, "include", tpl.Lines[2].ID)
	res = c.Post("/registrations/new", with(base, "action", "review"))
	if got := text(res, `[data-testid="review-total"]`); got != "Rp\u00a05.400.000" {
		t.Fatalf("total without Seragam = %q", got)
	}
	res = c.Post("/registrations/new", with(base, "action", "back"))
	if res.Doc.Find(`[data-step="1"]`).Length() != 1 || value(res, "email") != "rina@example.id" {
		t.Fatal("back lost the answers")
	}

	// Amounts are never taken from the form: a forged one changes nothing.
	res = c.Post("/registrations/new", with(base, "action", "confirm", "amount", "1"))
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/registrations/") {
		t.Fatalf("confirm: %d %q\n%s", res.StatusCode, res.Header.Get("Location"), res.Body)
	}
	res = c.Get(res.Header.Get("Location"))
	billID := text(res, `[data-testid="bill-id"]`)
	if res.StatusCode != http.StatusOK || billID == "" || !strings.Contains(text(res, `[data-testid="flash"]`), "Rina Wulandari") {
		t.Fatalf("summary: %d\n%s", res.StatusCode, res.Body)
	}
	var ids []string
	res.Doc.Find(`[data-testid="component-id"]`).Each(func(_ int, s *goquery.Selection) { ids = append(ids, strings.TrimSpace(s.Text())) })
	if len(ids) != 2 || ids[0] == "" || text(res, `[data-testid="registered-total"]`) != "Rp\u00a05.400.000" {
		t.Fatalf("component ids %v, total %q", ids, text(res, `[data-testid="registered-total"]`))
	}
	if href, _ := res.Doc.Find(`[data-testid="student-link"]`).Attr("href"); href != "/students/2027001" {
		t.Fatalf("student link = %q", href)
	}

	// The service has the student and exactly those components; the roster has the student.
	bills, err := p.Billing.StudentBills(t.Context(), "2027001", billing.Query{})
	if err != nil || len(bills) != 2 {
		t.Fatalf("upstream bills = %d, %v", len(bills), err)
	}
	var sum int64
	for _, b := range bills {
		sum += b.Amount
		if b.BillID != billID {
			t.Errorf("component %s in bill %s, want %s", b.ComponentID, b.BillID, billID)
		}
		if b.Name == "Buku" && (!b.Due.Equal(time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)) || b.Penalty != 25_000) {
			t.Errorf("Buku = %+v", b)
		}
	}
	if sum != 5_400_000 {
		t.Fatalf("upstream total = %d", sum)
	}
	st, err := p.DB.StudentByNIS(t.Context(), "2027001")
	if err != nil || st.Source != store.SourceCheckout || st.Name != "Rina Wulandari" || st.Description != "Kelas 7A" {
		t.Fatalf("roster: %+v %v", st, err)
	}
	entries := auditEntries(t, p, changes.ActionCheckout)
	if len(entries) != 1 || entries[0].Outcome != "ok" || entries[0].Actor != "finance" || entries[0].Target != "2027001" ||
		!strings.Contains(entries[0].Detail, billID) {
		t.Fatalf("audit = %+v", entries)
	}
	// A principal may read the record, not make one.
	if res := p.SignedIn(t, "principal").Get("/registrations/" + billID); res.StatusCode != http.StatusOK ||
		res.Doc.Find(`[data-testid="register-another"]`).Length() != 0 {
		t.Fatalf("principal summary: %d", res.StatusCode)
	}
	if res := c.Get("/registrations/no-such-bill"); res.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown bill: %d", res.StatusCode)
	}
}

func TestRegistrationWizardHTMX(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: regNow})
	tpl := createTemplate(t, p, p.SignedIn(t, "admin"), "Pendaftaran SMP 2027")
	c := p.SignedIn(t, "finance")
	hx := []string{"HX-Request", "true"}

	fragment := func(res *portaltest.Response, status int, step string) {
		t.Helper()
		if res.StatusCode != status || strings.Contains(res.Body, "<html") ||
			res.Doc.Find(`#registration-wizard[data-step="`+step+`"]`).Length() != 1 || !strings.Contains(strings.Join(res.Header.Values("Vary"), ","), "HX-Request") {
			t.Fatalf("want a step %s fragment with %d, got %d:\n%s", step, status, res.StatusCode, res.Body)
		}
	}
	res := c.Post("/registrations/new", with(student("2027002"), "name", "", "template", tpl.ID, "action", "next"), hx...)
	fragment(res, http.StatusUnprocessableEntity, "1")
	res = c.Post("/registrations/new", with(student("2027002"), "template", tpl.ID, "action", "next"), hx...)
	fragment(res, http.StatusOK, "2")
	res = c.Post("/registrations/new", with(student("2027002"), "template", tpl.ID, "fingerprint", value(res, "fingerprint"), "action", "confirm"), hx...)
	loc := res.Header.Get("HX-Redirect")
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(loc, "/registrations/") {
		t.Fatalf("HTMX confirm: %d %q", res.StatusCode, loc)
	}
	// No ticks sent with the confirm: only the required line is billed.
	rec, err := p.DB.RegistrationByBillID(t.Context(), strings.TrimPrefix(loc, "/registrations/"))
	if err != nil || len(rec.Components) != 1 || rec.Total != 5_000_000 {
		t.Fatalf("record = %+v, %v", rec, err)
	}
}

func TestRegistrationExistingNIS(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: regNow})
	tpl := createTemplate(t, p, p.SignedIn(t, "admin"), "Pendaftaran SMP 2027")
	c := p.SignedIn(t, "finance")
	ctx := context.Background()

	// Known to the roster, or only to the service: both are caught at step 1.
	if err := p.DB.UpsertStudents(ctx, []store.Student{{NIS: "2027010", Name: "Ada", Source: store.SourceUpload}}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Billing.CreateStudents(ctx, []billing.Student{{NIS: "2027011", Name: "Budi"}}); err != nil {
		t.Fatal(err)
	}
	for _, nis := range []string{"2027010", "2027011"} {
		res := c.Post("/registrations/new", with(student(nis), "template", tpl.ID, "action", "next"))
		if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(text(res, `[data-testid="error-nis"]`), "sudah terdaftar") ||
			value(res, "name") != "Rina Wulandari" {
			t.Fatalf("NIS %s: %d %q", nis, res.StatusCode, text(res, `[data-testid="error-nis"]`))
		}
	}

	// Created at the service between the review and the confirm: the checkout's refusal
	// lands on the NIS field too.
	res := c.Post("/registrations/new", with(student("2027012"), "template", tpl.ID, "action", "next"))
	fp := value(res, "fingerprint")
	if _, err := p.Billing.CreateStudents(ctx, []billing.Student{{NIS: "2027012", Name: "Citra"}}); err != nil {
		t.Fatal(err)
	}
	res = c.Post("/registrations/new", with(student("2027012"), "template", tpl.ID, "fingerprint", fp, "action", "confirm"))
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(text(res, `[data-testid="error-nis"]`), "sudah terdaftar") ||
		res.Doc.Find(`[data-step="1"]`).Length() != 1 {
		t.Fatalf("confirm with a taken NIS: %d\n%s", res.StatusCode, res.Body)
	}
	if _, err := p.DB.StudentByNIS(ctx, "2027012"); !errors.Is(err, store.ErrNotFound) {
		t.Fatal("a refused checkout reached the roster")
	}
	if e := auditEntries(t, p, changes.ActionCheckout); len(e) != 1 || e[0].Outcome != "failed" || e[0].UpstreamStatus != 400 {
		t.Fatalf("audit = %+v", e)
	}
}

func TestRegistrationUpstreamDown(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: regNow, UpstreamTimeout: 300 * time.Millisecond})
	tpl := createTemplate(t, p, p.SignedIn(t, "admin"), "Pendaftaran SMP 2027")
	c := p.SignedIn(t, "finance")
	ctx := context.Background()

	res := c.Post("/registrations/new", with(student("2027020"), "template", tpl.ID, "action", "next"))
	confirm := with(student("2027020"), "template", tpl.ID, "fingerprint", value(res, "fingerprint"), "include", tpl.Lines[1].ID, "action", "confirm")

	p.Sandbox.SetFaults(sandbox.Faults{ErrorRate: 1, Status: 503})
	res = c.Post("/registrations/new", confirm)
	if res.StatusCode != http.StatusBadGateway || !strings.Contains(text(res, `[data-testid="wizard-alert"]`), "tidak tersedia") ||
		!strings.Contains(text(res, `[data-testid="wizard-alert"]`), "Tidak ada yang tercatat") {
		t.Fatalf("upstream down: %d %q", res.StatusCode, text(res, `[data-testid="wizard-alert"]`))
	}
	// The review stays, with its answers and ticks, ready to try again.
	if res.Doc.Find(`[data-step="2"]`).Length() != 1 || value(res, "nis") != "2027020" ||
		res.Doc.Find(`input[name="include"][checked]`).Length() != 1 || text(res, `[data-testid="review-total"]`) != "Rp\u00a05.750.000" {
		t.Fatalf("review not kept:\n%s", res.Body)
	}
	if _, err := p.DB.StudentByNIS(ctx, "2027020"); !errors.Is(err, store.ErrNotFound) {
		t.Fatal("student recorded although the service failed")
	}
	if e := auditEntries(t, p, changes.ActionCheckout); len(e) != 1 || e[0].Outcome != "failed" || e[0].UpstreamStatus != 503 {
		t.Fatalf("audit = %+v", e)
	}

	// A timeout may have registered the student: the page says to check before retrying.
	p.Sandbox.SetFaults(sandbox.Faults{TimeoutRate: 1})
	res = c.Post("/registrations/new", confirm)
	if res.StatusCode != http.StatusGatewayTimeout || !strings.Contains(text(res, `[data-testid="wizard-alert"]`), "mungkin sudah tercatat") {
		t.Fatalf("timeout: %d %q", res.StatusCode, text(res, `[data-testid="wizard-alert"]`))
	}
	if _, err := p.DB.StudentByNIS(ctx, "2027020"); !errors.Is(err, store.ErrNotFound) {
		t.Fatal("an unanswered checkout was recorded as done")
	}
	if e := auditEntries(t, p, changes.ActionCheckout); len(e) != 2 || e[0].Outcome != "unknown" {
		t.Fatalf("audit = %+v", e)
	}
	p.Sandbox.SetFaults(sandbox.Faults{})
	// It did go through: now the NIS is taken.
	if res := c.Post("/registrations/new", with(confirm, "action", "next")); !strings.Contains(text(res, `[data-testid="error-nis"]`), "sudah terdaftar") {
		t.Fatalf("after the timeout: %d", res.StatusCode)
	}
}

func TestRegistrationFiguresChanged(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: regNow})
	admin := p.SignedIn(t, "admin")
	tpl := createTemplate(t, p, admin, "Pendaftaran SMP 2027")
	c := p.SignedIn(t, "finance")
	res := c.Post("/registrations/new", with(student("2027030"), "template", tpl.ID, "action", "next"))
	fp := value(res, "fingerprint")

	edited := slices.Clone(regLines)
	edited[0][2] = "6000000"
	admin.Post("/settings/fee-templates/"+tpl.ID, templateForm("Pendaftaran SMP 2027", edited[:]))
	res = c.Post("/registrations/new", with(student("2027030"), "template", tpl.ID, "fingerprint", fp, "action", "confirm"))
	if res.StatusCode != http.StatusConflict || !strings.Contains(text(res, `[data-testid="wizard-alert"]`), "berubah") {
		t.Fatalf("changed template: %d\n%s", res.StatusCode, res.Body)
	}
	if got := text(res, `[data-testid="review-total"]`); got != "Rp\u00a06.000.000" || value(res, "fingerprint") == fp {
		t.Fatalf("new review total %q", got)
	}
	if _, err := p.Billing.Student(t.Context(), "2027030"); !errors.Is(err, billing.ErrNotFound) {
		t.Fatalf("registered on stale figures: %v", err)
	}
}

func TestRegistrationRoles(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: regNow})
	tests := []struct {
		user, method, path string
		want               int
	}{
		{"principal", "GET", "/registrations/new", 403},
		{"principal", "POST", "/registrations/new", 403},
		{"principal", "GET", "/settings/fee-templates", 403},
		{"principal", "GET", "/settings/fee-templates/new", 403},
		{"principal", "POST", "/settings/fee-templates", 403},
		{"principal", "GET", "/settings/registration", 403},
		{"principal", "POST", "/settings/registration", 403},
		{"finance", "GET", "/registrations/new", 200},
		{"finance", "GET", "/settings/fee-templates", 403},
		{"finance", "POST", "/settings/fee-templates", 403},
		{"finance", "GET", "/settings/registration", 403},
		{"finance", "POST", "/settings/registration", 403},
		{"admin", "GET", "/registrations/new", 200},
		{"admin", "GET", "/settings/fee-templates", 200},
		{"admin", "GET", "/settings/registration", 200},
	}
	clients := map[string]*portaltest.Client{}
	for _, tt := range tests {
		c := clients[tt.user]
		if c == nil {
			c = p.SignedIn(t, tt.user)
			clients[tt.user] = c
		}
		var res *portaltest.Response
		if tt.method == "GET" {
			res = c.Get(tt.path)
		} else {
			res = c.Post(tt.path, with(templateForm("Forged", regLines), "enabled", "1", "action", "next"))
		}
		if res.StatusCode != tt.want {
			t.Errorf("%s %s %s = %d, want %d", tt.user, tt.method, tt.path, res.StatusCode, tt.want)
		}
	}
	if list, _ := p.DB.ListFeeTemplates(t.Context()); len(list) != 0 {
		t.Fatal("a forbidden POST stored a template")
	}
	nav := map[string][2]int{"principal": {0, 0}, "finance": {1, 0}, "admin": {1, 1}}
	for user, want := range nav {
		res := clients[user].Get("/")
		got := [2]int{res.Doc.Find(`[data-testid="nav-registration"]`).Length(), res.Doc.Find(`[data-testid="nav-settings"]`).Length()}
		if got != want {
			t.Errorf("%s sees registration/settings nav %v, want %v", user, got, want)
		}
	}
}

// publicForm is a parent's answers on the public form: no number (the school gives its
// own) and no optional line ticked.
func publicForm() url.Values {
	return url.Values{"name": {"Dewi Anggraini"}, "contact_name": {"Ibu Sari"}, "phone": {"0813 1111 2222"}, "email": {"sari@example.id"}}
}

// uuidPattern finds an id of the portal's (a UUID) in a page a parent reads.
var uuidPattern = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

func TestPublicRegistration(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: regNow})
	admin := p.SignedIn(t, "admin")
	tpl := createTemplate(t, p, admin, "Pendaftaran SMP 2027")
	visitor := p.NewClient(t)

	// Off by default: the page does not exist.
	if res := visitor.Get("/register"); res.StatusCode != http.StatusNotFound {
		t.Fatalf("off: GET %d", res.StatusCode)
	}
	if res := visitor.Post("/register", publicForm()); res.StatusCode != http.StatusNotFound {
		t.Fatalf("off: POST %d", res.StatusCode)
	}

	// Switching it on needs a template.
	res := admin.Post("/settings/registration", url.Values{"enabled": {"1"}})
	if res.StatusCode != http.StatusUnprocessableEntity || text(res, `[data-testid="error-template"]`) == "" ||
		res.Doc.Find(`[name="enabled"][checked]`).Length() != 1 {
		t.Fatalf("enable without template: %d", res.StatusCode)
	}
	if res := admin.Post("/settings/registration", url.Values{"enabled": {"1"}, "template": {tpl.ID}, "class": {"Calon Siswa SMP"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("enable: %d", res.StatusCode)
	}
	res = admin.Get("/settings/registration")
	if res.Doc.Find(`[name="enabled"][checked]`).Length() != 1 || value(res, "class") != "Calon Siswa SMP" {
		t.Fatal("settings not shown back")
	}

	// The form says which school it is from: without a logo, the name alone.
	if err := p.DB.SaveSchoolProfile(t.Context(), store.SchoolProfile{Name: "SMP Nusantara Bandung"}); err != nil {
		t.Fatal(err)
	}
	res = visitor.Get("/register")
	if res.StatusCode != http.StatusOK || text(res, `[data-testid="public-total"]`) != "Rp\u00a05.000.000" ||
		!strings.Contains(text(res, `[data-testid="public-fees"]`), "6 Des 2026") || res.Doc.Find(".sidenav").Length() != 0 {
		t.Fatalf("public page: %d\n%s", res.StatusCode, res.Body)
	}
	if text(res, `[data-testid="public-school"]`) != "SMP Nusantara Bandung" || res.Doc.Find(`[data-testid="public-school"] img`).Length() != 0 {
		t.Fatalf("school without a logo: %q", text(res, `[data-testid="public-school"]`))
	}
	// No number is asked for: applicants have none yet; the optional lines (Seragam,
	// Buku) are the parent's choice, unticked, as the staff's wizard leaves them optional.
	if res.Doc.Find(`[name="nis"]`).Length() != 0 {
		t.Fatal("the public form asks for a NIS")
	}
	optional := res.Doc.Find(`[data-testid="public-optional"] input[name="include"]`)
	if optional.Length() != 2 || optional.Filter("[checked]").Length() != 0 {
		t.Fatalf("optional lines: %d, %d ticked", optional.Length(), optional.Filter("[checked]").Length())
	}
	var seragam string
	res.Doc.Find(`[data-testid^="public-line-"]`).Each(func(_ int, l *goquery.Selection) {
		if strings.Contains(l.Text(), "Seragam") {
			seragam = l.Find(`input[name="include"]`).AttrOr("value", "")
		}
	})
	// With a logo, the logo beside the name, served while the form is on.
	if _, err := p.DB.SetSchoolLogo(t.Context(), "image/png", pngBytes(t)); err != nil {
		t.Fatal(err)
	}
	res = visitor.Get("/register")
	logo := res.Doc.Find(`[data-testid="public-logo"]`).AttrOr("src", "")
	if !strings.HasPrefix(logo, "/register/logo?v=") {
		t.Fatalf("logo %q", logo)
	}
	if lr := visitor.Get(logo); lr.StatusCode != http.StatusOK || lr.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("logo: %d %q", lr.StatusCode, lr.Header.Get("Content-Type"))
	}
	if hp := res.Doc.Find(`input[name="website"]`); hp.AttrOr("autocomplete", "") != "off" || hp.Parent().AttrOr("class", "") != "visually-hidden" {
		t.Fatal("honeypot not hidden or autocompleted")
	}

	// Mistakes keep the values.
	res = visitor.Post("/register", with(publicForm(), "contact_name", "", "phone", "", "include", seragam))
	if res.StatusCode != http.StatusUnprocessableEntity || text(res, `[data-testid="error-contact_name"]`) == "" ||
		text(res, `[data-testid="error-phone"]`) == "" || value(res, "name") != "Dewi Anggraini" ||
		res.Doc.Find(`input[name="include"][value="`+seragam+`"][checked]`).Length() != 1 {
		t.Fatalf("invalid public form: %d", res.StatusCode)
	}

	res = visitor.Post("/register", with(publicForm(), "include", seragam))
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/register/thanks" {
		t.Fatalf("submit: %d %q\n%s", res.StatusCode, res.Header.Get("Location"), res.Body)
	}
	res = visitor.Get("/register/thanks")
	ref := text(res, `[data-testid="public-reference"]`)
	pay := text(res, `[data-testid="public-pay-lines"]`)
	// Thanked with the school's own number and the child's name, never an id of ours.
	if ref != "PPDB-2026-0001" || text(res, `[data-testid="public-student"]`) != "Dewi Anggraini" ||
		!strings.Contains(pay, "Rp\u00a05.000.000") || !strings.Contains(pay, "Seragam") || strings.Contains(pay, "Buku") ||
		!strings.Contains(pay, "6 Des 2026") || !strings.Contains(pay, "Rp\u00a05.100.000") ||
		!strings.Contains(text(res, `[data-testid="public-confirm"]`), "Sekolah akan memastikannya") ||
		text(res, `[data-testid="public-school"]`) != "SMP Nusantara Bandung" {
		t.Fatalf("thanks page:\n%s", res.Body)
	}
	if id := uuidPattern.FindString(text(res, "main")); id != "" {
		t.Fatalf("the thanks page shows an id: %s", id)
	}
	// The intake sends it (under the hourly cap, a new NIS) as "public" from the address.
	apps := settleApplications(t, p)
	if len(apps) != 1 || apps[0].State != registration.StateRegistered || !apps[0].Auto || apps[0].BillID == "" || apps[0].Reference != ref {
		t.Fatalf("application = %+v", apps)
	}
	st, err := p.DB.StudentByNIS(t.Context(), ref)
	if err != nil || st.Source != store.SourceRegistration || st.Description != "Calon Siswa SMP" || st.Phone != "081311112222" {
		t.Fatalf("roster: %+v %v", st, err)
	}
	e := auditEntries(t, p, changes.ActionCheckout)
	if len(e) != 1 || e[0].Actor != "public" || e[0].IP != "127.0.0.1" || e[0].Outcome != "ok" {
		t.Fatalf("audit = %+v", e)
	}
	if rec, err := p.DB.RegistrationByBillID(t.Context(), apps[0].BillID); err != nil || rec.ContactName != "Ibu Sari" || len(rec.Components) != 2 ||
		rec.Total != 5_750_000 {
		t.Fatalf("record = %+v %v", rec, err)
	}
	// Who filled the form in became the parents' contact.
	if pc, err := p.DB.ParentContacts(t.Context(), ref); err != nil || pc.Name != "Ibu Sari" || pc.WhatsApp != "081311112222" {
		t.Fatalf("parents' contacts = %+v %v", pc, err)
	}

	// Another parent, from another browser: the next number, the same page but for it;
	// nothing optional ticked, nothing optional billed.
	other := p.NewClient(t)
	other.Get("/register")
	res = other.Post("/register", publicForm())
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/register/thanks" {
		t.Fatalf("another parent: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	res = other.Get("/register/thanks")
	if got := text(res, `[data-testid="public-reference"]`); got != "PPDB-2026-0002" {
		t.Fatalf("the second number: %q", got)
	}
	if pay := text(res, `[data-testid="public-pay-lines"]`); strings.Contains(pay, "Seragam") || !strings.Contains(pay, "Uang Pangkal") {
		t.Fatalf("the second parent's fees: %s", pay)
	}
	apps = settleApplications(t, p)
	if len(apps) != 2 || apps[1].State != registration.StateRegistered || len(apps[1].Components) != 1 {
		t.Fatalf("applications = %+v", apps)
	}
	if rec, err := p.DB.RegistrationByBillID(t.Context(), apps[1].BillID); err != nil || len(rec.Components) != 1 || rec.NIS != "PPDB-2026-0002" {
		t.Fatalf("second record = %+v %v", rec, err)
	}

	// Switched off again, the page is gone.
	admin.Post("/settings/registration", url.Values{"template": {tpl.ID}})
	if res := visitor.Get("/register"); res.StatusCode != http.StatusNotFound {
		t.Fatalf("off again: %d", res.StatusCode)
	}
}

func TestPublicRegistrationHoneypotAndRateLimit(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: regNow})
	admin := p.SignedIn(t, "admin")
	tpl := createTemplate(t, p, admin, "Pendaftaran SMP 2027")
	admin.Post("/settings/registration", url.Values{"enabled": {"1"}, "template": {tpl.ID}})

	// A robot fills the hidden field: it is told all went well, and nothing is registered.
	robot := p.NewClient(t)
	robot.Get("/register")
	res := robot.Post("/register", with(publicForm(), "website", "http://spam.example"))
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/register/thanks" {
		t.Fatalf("honeypot: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	if res := robot.Get("/register/thanks"); res.StatusCode != http.StatusOK || res.Doc.Find(`[data-testid="public-thanks"]`).Length() != 1 {
		t.Fatalf("honeypot thanks: %d", res.StatusCode)
	}
	if apps := applications(t, p); len(apps) != 0 {
		t.Fatalf("the honeypot was kept: %+v", apps)
	}
	if len(auditEntries(t, p, changes.ActionCheckout)) != 0 {
		t.Fatal("the honeypot made a checkout")
	}
	// Without a registration, the thanks page sends visitors to the form.
	if res := p.NewClient(t).Get("/register/thanks"); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/register" {
		t.Fatalf("thanks without a registration: %d", res.StatusCode)
	}

	// Five registrations an hour from one address; the sixth is refused with the time to
	// come back, its values kept.
	visitor := p.NewClient(t)
	visitor.Get("/register")
	for i := range 5 {
		if res := visitor.Post("/register", publicForm()); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("registration %d: %d\n%s", i+1, res.StatusCode, res.Body)
		}
	}
	res = visitor.Post("/register", with(publicForm(), "name", "Raka Pratama"))
	if res.StatusCode != http.StatusTooManyRequests || !strings.Contains(text(res, `[data-testid="public-alert"]`), "22 Nov 2026 11:00") ||
		value(res, "name") != "Raka Pratama" {
		t.Fatalf("sixth: %d %q", res.StatusCode, text(res, `[data-testid="public-alert"]`))
	}
	if apps := applications(t, p); len(apps) != 5 {
		t.Fatalf("%d applications kept, want 5: the refused one was kept", len(apps))
	}
	// An hour later the address may register again.
	p.SetNow(regNow.Add(time.Hour + time.Second))
	if res := visitor.Post("/register", publicForm()); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("an hour later: %d\n%s", res.StatusCode, res.Body)
	}
}

func TestRegistrationTemplateDatesPast(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: regNow})
	admin := p.SignedIn(t, "admin")
	// Valid when written, but its fixed expiry is already behind a registration today.
	res := admin.Post("/settings/fee-templates", templateForm("Gelombang 1", [][8]string{
		{"Uang Pangkal", "SPP", "5000000", "", "2026-10-01", "2026-11-01", "", ""},
	}))
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("create: %d", res.StatusCode)
	}
	list, _ := p.DB.ListFeeTemplates(t.Context())
	tpl := list[0]

	c := p.SignedIn(t, "finance")
	res = c.Post("/registrations/new", with(student("2027300"), "template", tpl.ID, "action", "next"))
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(text(res, `[data-testid="error-template"]`), "Uang Pangkal sudah kedaluwarsa") {
		t.Fatalf("wizard: %d %q", res.StatusCode, text(res, `[data-testid="error-template"]`))
	}

	admin.Post("/settings/registration", url.Values{"enabled": {"1"}, "template": {tpl.ID}})
	visitor := p.NewClient(t)
	res = visitor.Get("/register")
	if res.StatusCode != http.StatusServiceUnavailable || res.Doc.Find(`[data-testid="public-unavailable"]`).Length() != 1 ||
		res.Doc.Find(`form[action="/register"]`).Length() != 0 {
		t.Fatalf("public form: %d", res.StatusCode)
	}
	if res := visitor.Post("/register", publicForm()); res.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("public post: %d", res.StatusCode)
	}
	if len(auditEntries(t, p, changes.ActionCheckout)) != 0 {
		t.Fatal("a checkout was attempted")
	}
}

// TestPublicNumberPrefix: the school's numbers take the prefix an admin sets (letters
// and digits; a wrong one is refused on its field, kept as typed), each year from 0001.
func TestPublicNumberPrefix(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: regNow})
	admin := p.SignedIn(t, "admin")
	tpl := createTemplate(t, p, admin, "Pendaftaran SMP 2027")
	res := admin.Post("/settings/registration", url.Values{"enabled": {"1"}, "template": {tpl.ID}, "number_prefix": {"PPDB 1"}})
	if res.StatusCode != http.StatusUnprocessableEntity || text(res, `[data-testid="error-number_prefix"]`) == "" || value(res, "number_prefix") != "PPDB 1" {
		t.Fatalf("a prefix with a space: %d", res.StatusCode)
	}
	if res := admin.Post("/settings/registration", url.Values{"enabled": {"1"}, "template": {tpl.ID}, "number_prefix": {"smpn1"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("prefix smpn1: %d", res.StatusCode)
	}
	if got := value(admin.Get("/settings/registration"), "number_prefix"); got != "SMPN1" {
		t.Fatalf("prefix shown back as %q", got)
	}
	c := p.NewClient(t)
	c.Get("/register")
	c.Post("/register", publicForm())
	if got := text(c.Get("/register/thanks"), `[data-testid="public-reference"]`); got != "SMPN1-2026-0001" {
		t.Fatalf("number %q", got)
	}
}
