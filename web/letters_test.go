package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/school"
	"github.com/sekolah/portal/internal/store"
)

// startLetters is a class of three (Kelas 7A) and one student of another class, on
// billsNow (22 Nov 2026), with a school that signs its letters:
//
//	3001 Ani Wijaya:    "SPP November" 300.000 + 30.000, due 10 Nov (late);
//	                    "SPP Desember" 300.000, opens 1 Dec (not payable yet), due 10 Dec
//	3002 Bayu Pratama:  "SPP November" 300.000, due 30 Nov (not yet due)
//	3003 Citra Lestari: nothing
//	3004 Dodi Kurnia (Kelas 8B): "SPP November" 300.000 + 30.000, due 10 Nov (late)
func startLetters(t *testing.T) *portaltest.Portal {
	t.Helper()
	p := portaltest.Start(t, portaltest.Options{Now: billsNow})
	ctx := t.Context()
	if _, err := p.Billing.CreateStudents(ctx, []billing.Student{
		{NIS: "3001", Name: "Ani Wijaya", Description: "Kelas 7A", Phone: "081234560001"},
		{NIS: "3002", Name: "Bayu Pratama", Description: "Kelas 7A"},
		{NIS: "3003", Name: "Citra Lestari", Description: "Kelas 7A"},
		{NIS: "3004", Name: "Dodi Kurnia", Description: "Kelas 8B"},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Billing.CreateComponents(ctx, []billing.ComponentInput{
		{NIS: "3001", AccountCode: "SPP", Name: "SPP November", Due: billDay("2026-11-10"), Expiry: billDay("2026-12-31"), Amount: 300_000, Penalty: 30_000},
		{NIS: "3001", AccountCode: "SPP", Name: "SPP Desember", Active: billDay("2026-12-01"), Due: billDay("2026-12-10"), Expiry: billDay("2027-01-31"), Amount: 300_000, Penalty: 30_000},
		{NIS: "3002", AccountCode: "SPP", Name: "SPP November", Due: billDay("2026-11-30"), Expiry: billDay("2026-12-31"), Amount: 300_000},
		{NIS: "3004", AccountCode: "SPP", Name: "SPP November", Due: billDay("2026-11-10"), Expiry: billDay("2026-12-31"), Amount: 300_000, Penalty: 30_000},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.App.School.Save(ctx, auth.Actor{Username: "admin", Role: auth.Admin}, school.Input{
		Name: "SMP Nusantara", City: "Bandung", LetterPattern: "{seq}/KEU/{MMR}/{YYYY}",
		BursarName: "Siti Aminah, S.E.", BursarNIP: "198703152010012008", PrincipalName: "Drs. H. Ahmad Fauzi, M.Pd.", PrincipalNIP: "196805121994031004",
	}); err != nil {
		t.Fatal(err)
	}
	p.SyncLedger(t)
	return p
}

func TestClassBillLetters(t *testing.T) {
	t.Parallel()
	p := startLetters(t)
	c := p.SignedIn(t, "finance")

	res := c.Get("/students/letters?class=" + url.QueryEscape("Kelas 7A"))
	if res.StatusCode != http.StatusOK {
		t.Fatalf("letters: %d", res.StatusCode)
	}
	docs := res.Doc.Find(`[data-testid="letter-set"] [data-testid="letter"]`)
	// Citra has nothing to pay: left out, and counted.
	if got := docs.Map(func(_ int, s *goquery.Selection) string { return s.AttrOr("data-nis", "") }); strings.Join(got, ",") != "3001,3002" {
		t.Fatalf("letters for %v", got)
	}
	if got := billsText(res.Doc.Find(`[data-testid="letters-summary"]`)); !strings.Contains(got, "2 surat") || !strings.Contains(got, "1 siswa") {
		t.Errorf("summary %q", got)
	}
	ani := docs.Eq(0)
	if got := billsText(ani.Find(`[data-testid="letter-number"]`)); got != "0001/KEU/XI/2026" {
		t.Errorf("number %q", got)
	}
	if got := billsText(docs.Eq(1).Find(`[data-testid="letter-number"]`)); got != "0002/KEU/XI/2026" {
		t.Errorf("second number %q", got)
	}
	if got := billsText(ani.Find(`[data-testid="letter-subject"]`)); got != "Pemberitahuan tagihan sekolah" {
		t.Errorf("subject %q", got)
	}
	if got := billsText(ani.Find(`[data-testid="letter-place"]`)); got != "Bandung, 22 Nov 2026" {
		t.Errorf("place and date %q", got)
	}
	if got := billsText(ani.Find(`[data-testid="letter-principal"]`)); !strings.Contains(got, "Mengetahui,") || !strings.Contains(got, "Kepala Sekolah") ||
		!strings.Contains(got, "Drs. H. Ahmad Fauzi, M.Pd.") || !strings.Contains(got, "NIP. 196805121994031004") {
		t.Errorf("principal %q", got)
	}
	if got := billsText(ani.Find(`[data-testid="letter-bursar"]`)); !strings.Contains(got, "Bendahara") || !strings.Contains(got, "Siti Aminah, S.E.") {
		t.Errorf("bursar %q", got)
	}
	// The total adds up its own column; December, not payable yet, is listed apart.
	var column int64
	ani.Find(`[data-testid="letter-line-today"]`).Each(func(_ int, s *goquery.Selection) {
		n, err := i18n.ParseRupiah(billsText(s))
		if err != nil {
			t.Fatalf("amount %q: %v", billsText(s), err)
		}
		column += n
	})
	if got := billsText(ani.Find(`[data-testid="letter-total"]`)); column != 330_000 || got != "Jumlah bila dibayar hari ini Rp 330.000" {
		t.Errorf("column adds up to %d, total %q", column, got)
	}
	if later := ani.Find(`[data-testid="letter-later-line"]`); later.Length() != 1 || !strings.Contains(billsText(later), "SPP Desember") ||
		!strings.Contains(billsText(later), "dapat dibayar mulai 1 Des 2026") {
		t.Errorf("later %q", billsText(later))
	}
	// The same letters printed again keep their numbers; the single letter takes the next.
	again := c.Get("/students/letters?class=" + url.QueryEscape("Kelas 7A")).Doc
	if got := billsText(again.Find(`[data-testid="letter-number"]`).First()); got != "0001/KEU/XI/2026" {
		t.Errorf("printed again: %q", got)
	}
	if got := billsText(c.Get("/students/3004/letter").Doc.Find(`[data-testid="letter-number"]`)); got != "0003/KEU/XI/2026" {
		t.Errorf("single letter number %q", got)
	}
	// Principals may print; an unknown class says so; a wrong kind is a bad request.
	if res := p.SignedIn(t, "principal").Get("/students/letters?class=" + url.QueryEscape("Kelas 7A")); res.StatusCode != http.StatusOK ||
		res.Doc.Find(`[data-testid="letters-record"]`).Length() != 0 {
		t.Errorf("principal: %d", res.StatusCode)
	}
	if res := c.Get("/students/letters?class=Kelas+99"); res.StatusCode != http.StatusNotFound || res.Doc.Find(`[data-testid="letters-message"]`).Length() != 1 {
		t.Errorf("unknown class: %d", res.StatusCode)
	}
	if res := c.Get("/students/letters?class=Kelas+7A&kind=invoice"); res.StatusCode != http.StatusBadRequest {
		t.Errorf("unknown kind: %d", res.StatusCode)
	}
	// The form alone, with the classes to choose from.
	form := c.Get("/students/letters").Doc
	if form.Find(`[data-testid="letters-class"] option[value="Kelas 8B"]`).Length() != 1 || form.Find(`[data-testid="letter"]`).Length() != 0 {
		t.Error("the chooser lacks the classes or prints letters")
	}
}

func TestClassRemindersRecordFollowUps(t *testing.T) {
	t.Parallel()
	p := startLetters(t)
	c := p.SignedIn(t, "finance")

	// The arrears report links the reminders of its students with something overdue.
	rep := c.Get("/reports/outstanding").Doc
	href := rep.Find(`[data-testid="outstanding-letters"]`).AttrOr("href", "")
	u, err := url.Parse(href)
	if err != nil || u.Path != "/students/letters" || u.Query().Get("kind") != "reminder" || u.Query().Get("nis") != "3001,3004" {
		t.Fatalf("report's link %q", href)
	}
	res := c.Get(href)
	docs := res.Doc.Find(`[data-testid="reminder"]`)
	if docs.Length() != 2 || billsText(docs.Eq(1).Find(`[data-testid="letter-subject"]`)) != "Pengingat tunggakan pembayaran" {
		t.Fatalf("%d reminders", docs.Length())
	}
	if got := billsText(docs.Eq(0).Find(`[data-testid="reminder-total"]`)); got != "Total yang harus dibayar Rp 330.000" {
		t.Errorf("reminder total %q", got)
	}
	// Recording the class's reminders: one follow-up each, with the student's entry.
	form := res.Doc.Find(`[data-testid="letters-record-form"]`)
	vals := url.Values{"class": {form.Find(`input[name="class"]`).AttrOr("value", "")}}
	form.Find(`input[name="nis"]`).Each(func(_ int, s *goquery.Selection) { vals.Add("nis", s.AttrOr("value", "")) })
	post := c.Post("/students/letters/record", vals)
	if post.StatusCode != http.StatusSeeOther {
		t.Fatalf("record: %d", post.StatusCode)
	}
	if got := billsText(c.Get(post.Header.Get("Location")).Doc.Find(`#alerts`)); !strings.Contains(got, "2 surat pengingat dicatat") {
		t.Errorf("flash %q", got)
	}
	for _, nis := range []string{"3001", "3004"} {
		if f, err := p.DB.LastFollowUp(t.Context(), nis, "letter"); err != nil || f.Total != 330_000 {
			t.Errorf("follow-up of %s: %+v %v", nis, f, err)
		}
	}
	if _, err := p.DB.LastFollowUp(t.Context(), "3002", "letter"); err == nil {
		t.Error("a student with nothing overdue was recorded")
	}
	// Principals may not record.
	if res := p.SignedIn(t, "principal").Post("/students/letters/record", url.Values{"class": {"Kelas 7A"}}); res.StatusCode != http.StatusForbidden {
		t.Errorf("principal records: %d", res.StatusCode)
	}
}

// The school profile's letter fields: checked (an NIP in digits, under a name; a letter
// pattern of known codes), kept as typed on a mistake, saved and audited.
func TestSchoolLetterFields(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: billsNow})
	admin := p.SignedIn(t, "admin")
	form := url.Values{"name": {"SMP Nusantara"}, "city": {"Bandung"}, "bursar_name": {"Siti Aminah, S.E."}, "bursar_nip": {"NIP-1987"},
		"principal_nip": {"196805121994031004"}, "letter_pattern": {"{seq}/{BULAN}/{YYYY}"}}
	res := admin.Post("/settings/school", form)
	if res.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("bad letter fields: %d", res.StatusCode)
	}
	for _, f := range []string{"bursar_nip", "principal_nip", "letter_pattern"} {
		if res.Doc.Find(`[data-testid="error-`+f+`"]`).Length() != 1 {
			t.Errorf("no error beside %s", f)
		}
	}
	if res.Doc.Find(`#f-bursar_nip`).AttrOr("value", "") != "NIP-1987" || res.Doc.Find(`#f-city`).AttrOr("value", "") != "Bandung" {
		t.Error("the form lost what was typed")
	}
	form.Set("bursar_nip", "19870315 201001 2 008")
	form.Set("principal_name", "Drs. H. Ahmad Fauzi, M.Pd.")
	form.Set("letter_pattern", "421/{seq}/SMP/{MMR}/{YYYY}")
	if res := admin.Post("/settings/school", form); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("save: %d %q", res.StatusCode, billsText(res.Doc.Find(".field-error")))
	}
	prof, err := p.App.School.Profile(t.Context())
	if err != nil || prof.BursarNIP != "198703152010012008" || prof.PrincipalName != "Drs. H. Ahmad Fauzi, M.Pd." || prof.LetterPattern != "421/{seq}/SMP/{MMR}/{YYYY}" {
		t.Fatalf("profile %+v %v", prof, err)
	}
	es, _, _ := p.DB.ListAudit(t.Context(), store.AuditFilter{Action: "settings.school.update"})
	if len(es) != 1 || es[0].Args["name"] != "SMP Nusantara" || !strings.Contains(es[0].Detail, `bursar="Siti Aminah, S.E."`) ||
		!strings.Contains(es[0].Detail, `letter_pattern="421/{seq}/SMP/{MMR}/{YYYY}"`) {
		t.Errorf("audit %+v", es)
	}
	if res := p.SignedIn(t, "finance").Post("/settings/school", form); res.StatusCode != http.StatusForbidden {
		t.Errorf("finance saves the profile: %d", res.StatusCode)
	}
}
