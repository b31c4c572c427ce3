package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/sekolah/portal/internal/followups"
	"github.com/sekolah/portal/internal/store"
)

// TestFollowUps: from the arrears report (22 Nov 2026), Siti Aminah's "SPP Oktober"
// (250.000 + 25.000, 12 days late) is followed up by WhatsApp and by a reminder letter;
// each is recorded in words in the audit log and shown as the report's last follow-up.
// A student without a mobile number gets a message instead of a link; principals see
// the report but may not follow up.
func TestFollowUps(t *testing.T) {
	t.Parallel()
	p, _ := startCounter(t)
	ctx := t.Context()
	siti := store.Student{NIS: "2024001", Name: "Siti Aminah", Description: "Kelas 7A", Phone: "0812-0000-0001", Source: store.SourceSync}
	if err := p.DB.UpsertStudents(ctx, []store.Student{siti}); err != nil {
		t.Fatal(err)
	}
	c := p.SignedIn(t, "finance")

	// The report offers WhatsApp and the letter on the row, and no follow-up yet.
	res := c.Get("/reports/outstanding")
	row := res.Doc.Find(`[data-testid="outstanding-row"][data-nis="2024001"]`)
	if row.Length() != 1 || billsText(row.Find(`[data-testid="row-last-followup"]`)) != "Belum pernah" ||
		row.Find(`[data-testid="row-whatsapp"]`).Length() != 1 || row.Find(`[data-testid="row-reminder"]`).AttrOr("href", "") != "/students/2024001/reminder" {
		t.Fatalf("row before: %d %q", row.Length(), billsText(row))
	}
	if form := row.Find(`[data-testid="row-whatsapp"]`).Closest("form"); form.AttrOr("action", "") != "/students/2024001/followup" || form.AttrOr("method", "") != "post" {
		t.Errorf("WhatsApp form posts to %q", form.AttrOr("action", ""))
	}

	// The student page offers the same two, WhatsApp as a form that records the follow-up.
	if sp := c.Get("/students/2024001"); sp.Doc.Find(`form[action="/students/2024001/followup"] [data-testid="student-whatsapp"]`).Length() != 1 ||
		sp.Doc.Find(`[data-testid="student-whatsapp-phone"]`).Length() != 0 || sp.Doc.Find(`[data-testid="student-reminder"]`).Length() != 1 {
		t.Errorf("student page follow-ups: %q", billsText(sp.Doc.Find(`.page-head`)))
	}

	// WhatsApp: 303 to wa.me with the international number and the message.
	res = c.Post("/students/2024001/followup", url.Values{"channel": {"whatsapp"}})
	loc := res.Header.Get("Location")
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "https://wa.me/6281200000001?text=") {
		t.Fatalf("whatsapp: %d %q", res.StatusCode, loc)
	}
	u, _ := url.Parse(loc)
	text := u.Query().Get("text")
	for _, want := range []string{"Siti Aminah (NIS 2024001)", "SPP Oktober (jatuh tempo 10 Nov 2026, terlambat 12 hari): Rp\u00a0275.000",
		"Total: Rp\u00a0275.000 (termasuk denda Rp\u00a025.000)", "Bagian Keuangan SMP Nusantara"} {
		if !strings.Contains(text, want) {
			t.Errorf("message lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "SPP Desember") {
		t.Errorf("message names a bill not yet due:\n%s", text)
	}

	// The audit log says it in words, linked to the student.
	audit := p.SignedIn(t, "admin").Get("/audit?action=" + followups.ActionWhatsApp)
	if got := billsText(audit.Doc.Find("tbody tr").First()); !strings.Contains(got, "Tindak lanjut WhatsApp") ||
		!strings.Contains(got, "Siti Aminah (NIS 2024001)") || !strings.Contains(got, "1 tagihan terlambat") || !strings.Contains(got, "Rp 275.000") {
		t.Errorf("audit row %q", got)
	}
	if audit.Doc.Find(`tbody tr a[href="/students/2024001"]`).Length() == 0 {
		t.Error("the audit row does not link to the student")
	}

	// The report shows it as the last follow-up.
	row = c.Get("/reports/outstanding").Doc.Find(`[data-testid="outstanding-row"][data-nis="2024001"]`)
	if got := billsText(row.Find(`[data-testid="row-last-followup"]`)); !strings.Contains(got, "22 Nov 2026") || !strings.Contains(got, "WhatsApp · oleh Finance Staf") {
		t.Errorf("last follow-up %q", got)
	}

	// The reminder letter: the school's header, the overdue component, days late, total.
	res = c.Get("/students/2024001/reminder")
	if res.StatusCode != http.StatusOK || billsText(res.Doc.Find(`[data-testid="school-name"]`)) != "SMP Nusantara" {
		t.Fatalf("reminder: %d %q", res.StatusCode, billsText(res.Doc.Find(`[data-testid="school-name"]`)))
	}
	lines := res.Doc.Find(`[data-testid="reminder-line"]`)
	var cells []string
	lines.Find("td").Each(func(_ int, s *goquery.Selection) { cells = append(cells, billsText(s)) })
	if got := strings.Join(cells, " | "); lines.Length() != 1 || got != "SPP Oktober | 10 Nov 2026 | 12 hari | Rp 250.000 | Rp 25.000 | Rp 275.000" {
		t.Errorf("reminder lines %d %q", lines.Length(), got)
	}
	if got := billsText(res.Doc.Find(`[data-testid="reminder-total"]`)); got != "Total yang harus dibayar Rp 275.000" {
		t.Errorf("reminder total %q", got)
	}
	// Recorded as sent from the letter: back to it, and the report says "Surat".
	res = c.Post("/students/2024001/followup", url.Values{"channel": {"letter"}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/students/2024001/reminder" {
		t.Fatalf("letter: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	res = c.Get("/students/2024001/reminder")
	if body := billsText(res.Doc.Find("body")); !strings.Contains(body, "Surat pengingat untuk Siti Aminah dicatat sebagai terkirim.") ||
		!strings.Contains(billsText(res.Doc.Find(`[data-testid="reminder-last-sent"]`)), "Finance Staf") {
		t.Errorf("after recording the letter: flash or last sent missing: %q", billsText(res.Doc.Find(`[data-testid="reminder-last-sent"]`)))
	}
	row = c.Get("/reports/outstanding").Doc.Find(`[data-testid="outstanding-row"][data-nis="2024001"]`)
	if got := billsText(row.Find(`[data-testid="row-last-followup"]`)); !strings.Contains(got, "Surat · oleh Finance Staf") {
		t.Errorf("last follow-up after the letter %q", got)
	}

	// Principals see the report and the letter, but may not follow up.
	pc := p.SignedIn(t, "principal")
	if res := pc.Get("/reports/outstanding"); res.StatusCode != http.StatusOK || res.Doc.Find(`[data-testid="row-whatsapp"]`).Length() != 0 {
		t.Errorf("principal report: %d, %d WhatsApp buttons", res.StatusCode, res.Doc.Find(`[data-testid="row-whatsapp"]`).Length())
	}
	if res := pc.Get("/students/2024001/reminder"); res.StatusCode != http.StatusOK || res.Doc.Find(`[data-testid="record-letter"]`).Length() != 0 {
		t.Errorf("principal reminder: %d", res.StatusCode)
	}
	if res := pc.Post("/students/2024001/followup", url.Values{"channel": {"whatsapp"}}); res.StatusCode != http.StatusForbidden {
		t.Errorf("principal follow-up: %d", res.StatusCode)
	}

	// No phone, or a landline: a message saying what to do, no link, nothing recorded.
	for phone, want := range map[string]string{"": "belum punya nomor telepon", "(022) 765-4321": "bukan nomor HP"} {
		siti.Phone = phone
		if err := p.DB.UpsertStudents(ctx, []store.Student{siti}); err != nil {
			t.Fatal(err)
		}
		// The student page says so before the click: WhatsApp leads to the parents' contacts.
		sp := c.Get("/students/2024001")
		if a := sp.Doc.Find(`[data-testid="student-whatsapp-phone"]`); a.AttrOr("href", "") != "/students/2024001/contacts" ||
			!strings.Contains(a.AttrOr("title", ""), want) || sp.Doc.Find(`[data-testid="student-whatsapp"]`).Length() != 0 {
			t.Errorf("student page with phone %q: %q %q", phone, a.AttrOr("href", ""), a.AttrOr("title", ""))
		}
		res = c.Post("/students/2024001/followup", url.Values{"channel": {"whatsapp"}})
		if res.StatusCode != http.StatusUnprocessableEntity || res.Header.Get("Location") != "" ||
			!strings.Contains(billsText(res.Doc.Find(`[data-testid="followup-message"]`)), want) {
			t.Errorf("phone %q: %d %q %q", phone, res.StatusCode, res.Header.Get("Location"), billsText(res.Doc.Find(`[data-testid="followup-message"]`)))
		}
	}
	if entries, _, err := p.DB.ListAudit(ctx, store.AuditFilter{Action: followups.ActionWhatsApp}); err != nil || len(entries) != 1 {
		t.Errorf("WhatsApp follow-ups audited: %d (%v), want 1", len(entries), err)
	}
}

// TestArrearsReportScope: overdue only by default; the switch (all=1, a link and a
// checkbox, no JS needed) adds the not yet due; expired unpaid is its own column.
func TestArrearsReportScope(t *testing.T) {
	t.Parallel()
	p, _ := startCounter(t)
	c := p.SignedIn(t, "finance")

	res := c.Get("/reports/outstanding")
	rows := res.Doc.Find(`[data-testid="outstanding-row"]`)
	// Only Siti is late (SPP Oktober); Budi's SPP November is not yet due, Dewi's study tour neither.
	if rows.Length() != 1 || rows.AttrOr("data-nis", "") != "2024001" || billsText(res.Doc.Find(`[data-testid="outstanding-total"]`)) != "Rp 275.000" {
		t.Fatalf("overdue only: %d rows, total %q", rows.Length(), billsText(res.Doc.Find(`[data-testid="outstanding-total"]`)))
	}
	if res.Doc.Find(`table.table--cards td:not([data-label])`).Length() != 0 {
		t.Error("a cell without data-label")
	}
	res = c.Get("/reports/outstanding?all=1")
	rows = res.Doc.Find(`[data-testid="outstanding-row"]`)
	var order []string
	rows.Each(func(_ int, s *goquery.Selection) { order = append(order, s.AttrOr("data-nis", "")) })
	// Largest overdue first: Siti (275.000 late), then by what they owe: Dewi 500.000, Budi 200.000.
	if strings.Join(order, ",") != "2024001,2024003,2024002" {
		t.Fatalf("all unpaid order %v", order)
	}
	budi := res.Doc.Find(`[data-testid="outstanding-row"][data-nis="2024002"]`)
	if got := billsText(budi.Find(`[data-testid="row-expired"]`)); got != "Rp 300.000" {
		t.Errorf("Budi's expired %q", got)
	}
	if got := billsText(budi.Find(`[data-testid="row-not-due"]`)); got != "Rp 200.000" {
		t.Errorf("Budi's not yet due %q", got)
	}
	if got := billsText(budi.Find(`[data-testid="row-overdue"]`)); got != "Rp 0" {
		t.Errorf("Budi's overdue %q", got)
	}
	// The filters are kept with the switch, and the switch link goes back.
	res = c.Get("/reports/outstanding?all=1&account=BCA")
	if rows := res.Doc.Find(`[data-testid="outstanding-row"]`); rows.Length() != 1 || rows.AttrOr("data-nis", "") != "2024003" {
		t.Errorf("BCA: %d rows", rows.Length())
	}
	if href := res.Doc.Find(`[data-testid="switch-link"]`).AttrOr("href", ""); href != "/reports/outstanding?account=BCA" {
		t.Errorf("switch back links to %q", href)
	}
	if res := c.Get("/reports/outstanding?account=BCA"); res.Doc.Find(`[data-testid="outstanding-row"]`).Length() != 0 {
		t.Error("BCA's bills are not late, yet the arrears report lists them")
	}
}
