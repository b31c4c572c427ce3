package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/school"
	"github.com/sekolah/portal/internal/store"
)

// nightNow is 01:30 WIB on Saturday 28 November 2026, which is still Friday the 27th in
// UTC: the hour at which two testers saw a bill letter and a reminder carry yesterday.
// Every dated page and document must say the 28th, and count days from it.
var nightNow = time.Date(2026, 11, 27, 18, 30, 0, 0, time.UTC)

// The school's date at nightNow, as pages print a day, and the UTC date they must not.
const (
	nightDay    = "28 Nov 2026"
	nightUTCDay = "27 Nov 2026"
)

// startNight is a portal at nightNow with a school profile and, for Siti Aminah
// (2024001, a WhatsApp number), SPP November due on the 27th (late by one day at the
// school, due today by the UTC date) and SPP Desember due on the 28th (due today at the
// school, not yet by the UTC date); Budi Santoso (2024002) owes a study tour due 5 Dec.
func startNight(t *testing.T) (*portaltest.Portal, map[string]billing.Bill) {
	t.Helper()
	p := portaltest.Start(t, portaltest.Options{Now: nightNow})
	ctx := t.Context()
	if _, err := p.Billing.CreateStudents(ctx, []billing.Student{
		{NIS: "2024001", Name: "Siti Aminah", Phone: "081200000001", Description: "Kelas 7A"},
		{NIS: "2024002", Name: "Budi Santoso", Phone: "081200000002", Description: "Kelas 8B"},
	}); err != nil {
		t.Fatal(err)
	}
	created, err := p.Billing.CreateComponents(ctx, []billing.ComponentInput{
		{NIS: "2024001", AccountCode: "SPP", Name: "SPP November", Due: billDay("2026-11-27"), Expiry: billDay("2026-12-31"), Amount: 200_000, Penalty: 20_000},
		{NIS: "2024001", AccountCode: "SPP", Name: "SPP Desember", Due: billDay("2026-11-28"), Expiry: billDay("2027-01-31"), Amount: 250_000, Penalty: 25_000},
		{NIS: "2024002", AccountCode: "BCA", Name: "Study tour", Due: billDay("2026-12-05"), Expiry: billDay("2027-01-31"), Amount: 500_000},
	})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]billing.Bill{}
	for _, b := range created {
		byName[b.Name] = b
	}
	if _, err := p.App.School.Save(ctx, auth.Actor{Username: "admin", Role: auth.Admin}, school.Input{
		Name: "SMP Nusantara", Address: "Jl. Merdeka 1\nBandung", ReceiptPattern: "KW/{YYYY}/{MM}/{seq}",
	}); err != nil {
		t.Fatal(err)
	}
	p.SyncLedger(t)
	if err := p.DB.UpsertStudents(ctx, []store.Student{{NIS: "2024001", Name: "Siti Aminah", Phone: "081200000001",
		Description: "Kelas 7A", Source: store.SourceSync}}); err != nil {
		t.Fatal(err)
	}
	return p, byName
}

// says checks that the page's text holds every one of want and none of the UTC dates.
func says(t *testing.T, what string, res *portaltest.Response, want ...string) {
	t.Helper()
	if res.StatusCode != http.StatusOK {
		t.Errorf("%s: status %d", what, res.StatusCode)
		return
	}
	body := billsText(res.Doc.Find("body"))
	for _, w := range want {
		if w = strings.Join(strings.Fields(w), " "); !strings.Contains(body, w) {
			t.Errorf("%s does not say %q:\n%s", what, w, body)
		}
	}
}

// The bill letter, the reminder, the counter (its page, its confirmation, the receipt and
// the next receipt number), the WhatsApp message, the students' pages, the dashboard, the
// reports and their exports, the upcoming dues, the audit filter and the registration
// wizard, at 01:30 WIB: the school's date, and days counted from it.
func TestDatesAt0130WIBAreTheSchoolsDate(t *testing.T) {
	t.Parallel()
	p, bills := startNight(t)
	c := p.SignedIn(t, "finance")
	id := i18n.NewPrinter(i18n.Indonesian, nil)

	t.Run("bill letter", func(t *testing.T) {
		res := c.Get("/students/2024001/letter")
		says(t, "the letter", res, id.T("letter.place_date", nightDay), id.T("letter.intro", "Siti Aminah", nightDay))
		// SPP November is a day late at the school: its late fee is in the total.
		if got := billsText(res.Doc.Find(`[data-testid="letter-total"]`)); got != "Jumlah bila dibayar hari ini Rp 470.000" {
			t.Errorf("letter total %q", got)
		}
	})
	t.Run("reminder letter", func(t *testing.T) {
		says(t, "the reminder", c.Get("/students/2024001/reminder"),
			id.T("letter.place_date", nightDay), id.T("reminder.intro", "Siti Aminah", nightDay))
	})
	t.Run("whatsapp message", func(t *testing.T) {
		res := c.Post("/students/2024001/followup", url.Values{"channel": {"whatsapp"}})
		u, err := url.Parse(res.Header.Get("Location"))
		if res.StatusCode != http.StatusSeeOther || err != nil {
			t.Fatalf("whatsapp: %d %v", res.StatusCode, err)
		}
		text := u.Query().Get("text")
		// Due yesterday at the school: one day late; due today is not in arrears yet.
		if want := id.T("followups.wa.item", "SPP November", "27 Nov 2026", 1, i18n.Rupiah(220_000)); !strings.Contains(text, want) {
			t.Errorf("message lacks %q:\n%s", want, text)
		}
		if strings.Contains(text, "SPP Desember") {
			t.Errorf("message names a bill due today:\n%s", text)
		}
	})
	t.Run("counter, confirmation and receipt", func(t *testing.T) {
		res := c.Get("/payments/new?nis=2024001")
		says(t, "the counter", res, id.T("payments.as_of", nightDay))
		// The receipt number is the school's month; the first of the month would show it.
		if ref := res.Doc.Find(`#f-ref`).AttrOr("value", ""); ref != "KW/2026/11/0001" {
			t.Errorf("suggested receipt number %q", ref)
		}
		form := url.Values{"nis": {"2024001"}, "ref": {"KW/2026/11/0001"}, "component": {bills["SPP November"].ComponentID}}
		says(t, "the confirmation", c.Post("/payments/confirm", form), id.T("payments.confirm.intro", nightDay), i18n.Rupiah(220_000))
		form.Set("total", "220000")
		if res := c.Post("/payments", form); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("pay: %d %s", res.StatusCode, billsText(res.Doc.Find("main")))
		}
		rc := c.Get("/payments/receipt?" + url.Values{"nis": {"2024001"}, "ref": {"KW/2026/11/0001"}}.Encode())
		says(t, "the receipt", rc, id.T("payments.receipt.printed", nightDay+" 01:30"))
		if got := billsText(rc.Doc.Find(`[data-testid="receipt-paid-at"]`)); got != nightDay+" 01:30" {
			t.Errorf("receipt paid at %q", got)
		}
	})
	t.Run("students pages", func(t *testing.T) {
		res := c.Get("/students/2024002")
		says(t, "the student page", res, id.T("students.as_of", nightDay))
		says(t, "the statement", c.Get("/students/2024002/statement"), id.T("students.statement.printed", nightDay+" 01:30"))
	})
	t.Run("dashboard and reports", func(t *testing.T) {
		says(t, "the dashboard", c.Get("/"), id.T("dashboard.intro", nightDay))
		for _, path := range []string{"/reports/outstanding?scope=all", "/reports/accounts"} {
			says(t, path, c.Get(path), id.T("reports.as_of")+" "+nightDay)
		}
	})
	t.Run("exports", func(t *testing.T) {
		res := c.Get("/reports/outstanding?scope=all&format=csv")
		if cd := res.Header.Get("Content-Disposition"); res.StatusCode != http.StatusOK || !strings.Contains(cd, "2026-11-28") {
			t.Errorf("outstanding export: %d %q", res.StatusCode, cd)
		}
		res = c.Get("/reports/outstanding?scope=all&format=xlsx")
		if cd := res.Header.Get("Content-Disposition"); res.StatusCode != http.StatusOK || !strings.Contains(cd, "2026-11-28") {
			t.Errorf("outstanding workbook: %d %q", res.StatusCode, cd)
		}
		if !workbookSays(t, res.Body, id.T("reports.as_of"), nightDay) {
			t.Errorf("the outstanding workbook's heading lacks %q", nightDay)
		}
		res = c.Get("/reports/accounts?format=xlsx")
		if !workbookSays(t, res.Body, id.T("reports.as_of"), nightDay) {
			t.Errorf("the accounts workbook's heading lacks %q", nightDay)
		}
		res = c.Get("/reports/statement?nis=2024002&format=xlsx")
		if cd := res.Header.Get("Content-Disposition"); res.StatusCode != http.StatusOK || !strings.Contains(cd, "2026-11-28") {
			t.Errorf("statement export: %d %q", res.StatusCode, cd)
		}
		res = c.Get("/bills/export-template.xlsx")
		if cd := res.Header.Get("Content-Disposition"); res.StatusCode != http.StatusOK || !strings.Contains(cd, "koreksi-tagihan-2026-11-28.xlsx") {
			t.Errorf("bills export: %d %q", res.StatusCode, cd)
		}
	})
	t.Run("upcoming dues", func(t *testing.T) {
		res := c.Get("/bills/upcoming")
		says(t, "the upcoming dues", res, id.T("bills.upcoming.range", nightDay, "4 Des 2026"))
	})
	t.Run("audit filter", func(t *testing.T) {
		res := p.SignedIn(t, "admin").Get("/audit")
		if got := res.Doc.Find(`[name="to"]`).AttrOr("value", ""); got != "2026-11-28" {
			t.Errorf("the audit list's last day %q", got)
		}
		if got := res.Doc.Find(`[name="from"]`).AttrOr("value", ""); got != "2026-10-29" {
			t.Errorf("the audit list's first day %q", got)
		}
	})
	t.Run("registration wizard", func(t *testing.T) {
		tpl := createTemplate(t, p, p.SignedIn(t, "admin"), "Pendaftaran 2027")
		res := c.Post("/registrations/new", with(student("2027050"), "template", tpl.ID, "action", "next"))
		says(t, "the wizard's review", res, id.T("registration.review_hint", nightDay))
	})
	if t.Failed() {
		return
	}
	// At 01:30 WIB on 1 December (30 Nov in UTC) the receipt numbers are December's.
	p.SetNow(time.Date(2026, 11, 30, 18, 30, 0, 0, time.UTC))
	// (three days later: the session has lapsed, a new one is opened.)
	if res := p.SignedIn(t, "finance").Get("/payments/new?nis=2024002"); res.Doc.Find(`#f-ref`).AttrOr("value", "") != "KW/2026/12/0001" {
		t.Errorf("suggested receipt number on 1 Dec at 01:30 WIB: %q (%d %s)", res.Doc.Find(`#f-ref`).AttrOr("value", ""),
			res.StatusCode, billsText(res.Doc.Find("main")))
	}
	p.SetNow(nightNow)
	// None of them said the UTC date where they meant today (the two dues on the 27th
	// are printed as such on purpose: check the pages that print no due day).
	for _, path := range []string{"/", "/reports/accounts", "/payments/new?nis=2024002"} {
		if body := billsText(c.Get(path).Doc.Find("body")); strings.Contains(body, nightUTCDay) {
			t.Errorf("%s says %s:\n%s", path, nightUTCDay, body)
		}
	}
}

// workbookSays reports whether the first sheet of the workbook has a row with label and
// value in two cells side by side.
func workbookSays(t *testing.T, body, label, value string) bool {
	t.Helper()
	f, err := excelize.OpenReader(strings.NewReader(body))
	if err != nil {
		t.Errorf("open the workbook: %v", err)
		return false
	}
	defer f.Close()
	rows, err := f.GetRows(f.GetSheetName(0))
	if err != nil {
		t.Errorf("read the workbook: %v", err)
		return false
	}
	for _, r := range rows {
		for i := 0; i+1 < len(r); i++ {
			if r[i] == label && r[i+1] == value {
				return true
			}
		}
	}
	return false
}
