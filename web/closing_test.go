package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/school"
	"github.com/sekolah/portal/internal/store"
)

// startClosing is the counter's school (seedBills) with a second cashier, Siti, and the
// school's letterhead and signatories; on PostgreSQL when postgres.
func startClosing(t *testing.T, postgres bool) (*portaltest.Portal, billsSchool) {
	t.Helper()
	p := portaltest.Start(t, portaltest.Options{Now: billsNow, Postgres: postgres})
	s := seedBills(t, p)
	ctx := t.Context()
	if err := p.DB.UpsertStudents(ctx, []store.Student{
		{NIS: "2024001", Name: "Siti Aminah", Description: "Kelas 7A", Source: store.SourceSync},
		{NIS: "2024002", Name: "Budi Santoso", Description: "Kelas 10B", Source: store.SourceSync},
		{NIS: "2024003", Name: "Dewi Lestari", Description: "Kelas 9C", Source: store.SourceSync},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.App.School.Save(ctx, auth.Actor{Username: "admin", Role: auth.Admin}, school.Input{
		Name: "SMP Nusantara", Address: "Jl. Merdeka 1\nBandung", NPSN: "20212345", Phone: "(022) 765-4321",
		ReceiptPattern: "KW/{YYYY}/{MM}/{seq}", City: "Bandung", BursarName: "Sri Wahyuni, S.E.", BursarNIP: "198703152010012008",
		PrincipalName: "Drs. Ahmad Fauzi, M.Pd.", PrincipalNIP: "196805121994031004",
	}); err != nil {
		t.Fatal(err)
	}
	p.CreateUser(t, "siti", auth.Finance)
	return p, s
}

// spaced is the text of s with its elements' texts apart ("Kasir Siti", not "KasirSiti").
func spaced(s *goquery.Selection) string {
	var parts []string
	s.Contents().Each(func(_ int, c *goquery.Selection) {
		if goquery.NodeName(c) == "#text" {
			parts = append(parts, c.Text())
		} else {
			parts = append(parts, spaced(c))
		}
	})
	return strings.Join(strings.Fields(strings.Join(parts, " ")), " ")
}

// closingForm is a sign-off as the page posts it, with the figures the page showed.
func closingForm(t *testing.T, page *portaltest.Response, counted, reason string) url.Values {
	t.Helper()
	f := page.Doc.Find(`[data-testid="closing-form"]`)
	if f.Length() != 1 {
		t.Fatalf("no closing form:\n%s", billsText(page.Doc.Find("main")))
	}
	return url.Values{"day": {f.Find(`[name="day"]`).AttrOr("value", "")}, "payments": {f.Find(`[name="payments"]`).AttrOr("value", "")},
		"expected": {f.Find(`[name="expected"]`).AttrOr("value", "")}, "counted": {counted}, "reason": {reason}}
}

// Two cashiers close the same day: each their own receipts; a difference needs its
// reason (what was typed kept); a locked day refuses a second closing and the cashier's
// further counter payments, while the other cashier still takes them; principals read
// every closing and its berita acara but post nothing; an admin reopens with a reason.
// On SQLite and on PostgreSQL.
func TestClosingTwoCashiers(t *testing.T) {
	t.Parallel()
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			testClosingTwoCashiers(t, engine == "postgres")
		})
	}
}

func testClosingTwoCashiers(t *testing.T, postgres bool) {
	p, s := startClosing(t, postgres)
	fin, siti := p.SignedIn(t, "finance"), p.SignedIn(t, "siti")
	if res := fin.Post("/payments", url.Values{"nis": {"2024001"}, "ref": {"KW-1"}, "component": {s.id("SPP Oktober"), s.id("SPP Desember")},
		"total": {"535000"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("finance's payment: %d %s", res.StatusCode, billsText(res.Doc.Find("main")))
	}
	if res := siti.Post("/payments", url.Values{"nis": {"2024002"}, "ref": {"KW-2"}, "component": {s.id("SPP November")},
		"total": {"200000"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("Siti's payment: %d %s", res.StatusCode, billsText(res.Doc.Find("main")))
	}

	// Each cashier's page: every cashier's receipts, their own to close.
	page := siti.Get("/closing")
	if page.StatusCode != http.StatusOK || page.Doc.Find(`[data-testid="nav-closing"][aria-current="page"]`).Length() != 1 {
		t.Fatalf("/closing: %d", page.StatusCode)
	}
	if got := billsText(page.Doc.Find(`[data-testid="closing-summary"]`)); got != "2 kuitansi · seharusnya Rp 735.000 · 0 dari 2 kasir sudah tutup kas" {
		t.Errorf("summary %q", got)
	}
	if got := billsText(page.Doc.Find(`[data-testid="closing-mine-expected"]`)); got != "Rp 200.000" {
		t.Errorf("Siti's expected %q", got)
	}
	row := func(doc *portaltest.Response, cashier, what string) string {
		return billsText(doc.Doc.Find(`[data-testid="closing-row"][data-cashier="` + cashier + `"] [data-testid="` + what + `"]`))
	}
	if row(page, "finance", "closing-expected") != "Rp 535.000" || row(page, "siti", "closing-payments") != "1" ||
		row(page, "siti", "closing-state") != "Belum tutup" {
		t.Errorf("cashiers %q", billsText(page.Doc.Find(`[data-testid="closing-table"]`)))
	}
	if refs := page.Doc.Find(`[data-testid="closing-drawer"][data-cashier="finance"] [data-testid="closing-receipt"]`); refs.Length() != 1 ||
		refs.AttrOr("data-ref", "") != "KW-1" || !strings.Contains(billsText(refs), "Siti Aminah") {
		t.Errorf("finance's receipts %q", billsText(refs))
	}

	// Rp 5.000 short, without a reason: refused beside the field, what was typed kept.
	res := siti.Post("/closing", closingForm(t, page, "Rp 195.000", ""))
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(billsText(res.Doc.Find(`[data-testid="error-reason"]`)), "Rp 5.000") ||
		res.Doc.Find(`#f-counted`).AttrOr("value", "") != "Rp 195.000" {
		t.Fatalf("a difference without a reason: %d %q", res.StatusCode, billsText(res.Doc.Find(`[data-testid="closing-mine"]`)))
	}
	// The same through HTMX: the partial, with the same message.
	res = siti.Post("/closing", closingForm(t, page, "Rp 195.000", ""), "HX-Request", "true")
	if res.StatusCode != http.StatusUnprocessableEntity || strings.Contains(res.Body, "<html") || res.Doc.Find(`[data-testid="error-reason"]`).Length() != 1 {
		t.Fatalf("htmx: %d", res.StatusCode)
	}
	res = siti.Post("/closing", closingForm(t, page, "Rp 195.000", "uang kembalian kurang"))
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/closing?day=2026-11-22" {
		t.Fatalf("Siti's closing: %d %q", res.StatusCode, billsText(res.Doc.Find("main")))
	}
	page = siti.Get("/closing?day=2026-11-22")
	if got := billsText(page.Doc.Find(`#alerts`)); !strings.Contains(got, "ditutup dan dikunci: Rp 195.000 dihitung, selisih kurang Rp 5.000") {
		t.Errorf("flash %q", got)
	}
	if page.Doc.Find(`[data-testid="closing-mine-locked"]`).Length() != 1 || row(page, "siti", "closing-difference") != "kurang Rp 5.000 uang kembalian kurang" {
		t.Errorf("after the closing %q", billsText(page.Doc.Find(`[data-testid="closing-table"]`)))
	}

	// Locked: a second closing is refused, and so is Siti's next counter payment; the
	// service is never asked to record it.
	res = siti.Post("/closing", url.Values{"day": {"2026-11-22"}, "payments": {"1"}, "expected": {"200000"}, "counted": {"200000"}})
	if res.StatusCode != http.StatusConflict || !strings.Contains(billsText(res.Doc.Find(`[data-testid="form-error"], .alert--error`)), "sudah ditutup") {
		t.Fatalf("a second closing: %d %q", res.StatusCode, billsText(res.Doc.Find("main")))
	}
	res = siti.Post("/payments", url.Values{"nis": {"2024003"}, "ref": {"KW-3"}, "component": {s.id("Study tour")}, "total": {"500000"}})
	if res.StatusCode != http.StatusConflict || !strings.Contains(billsText(res.Doc.Find("main")), "Kas Anda untuk 22 Nov 2026 sudah ditutup dan dikunci") {
		t.Fatalf("a payment after the closing: %d %q", res.StatusCode, billsText(res.Doc.Find("main")))
	}
	if b, err := p.Billing.GetComponent(t.Context(), s.id("Study tour")); err != nil || b.State == billing.StatePaid {
		t.Fatalf("the refused payment reached the service: %+v %v", b, err)
	}

	// Finance counts exactly and closes too.
	page = fin.Get("/closing")
	if res := fin.Post("/closing", closingForm(t, page, "535.000", "")); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("finance's closing: %d %q", res.StatusCode, billsText(res.Doc.Find("main")))
	}

	// The principal reads both and their berita acara, and may post nothing.
	prin := p.SignedIn(t, "principal")
	page = prin.Get("/closing")
	if page.StatusCode != http.StatusOK || page.Doc.Find(`[data-testid="closing-form"]`).Length() != 0 ||
		page.Doc.Find(`[data-testid="closing-readonly"]`).Length() != 1 || page.Doc.Find(`[data-testid="closing-reopen"]`).Length() != 0 {
		t.Fatalf("the principal's page: %d", page.StatusCode)
	}
	if got := billsText(page.Doc.Find(`[data-testid="closing-summary"]`)); got != "2 kuitansi · seharusnya Rp 735.000 · 2 dari 2 kasir sudah tutup kas" {
		t.Errorf("summary %q", got)
	}
	printURL := page.Doc.Find(`[data-testid="closing-row"][data-cashier="siti"] [data-testid="closing-print"]`).AttrOr("href", "")
	doc := prin.Get(printURL)
	if doc.StatusCode != http.StatusOK {
		t.Fatalf("berita acara %q: %d", printURL, doc.StatusCode)
	}
	for id, want := range map[string]string{
		"closing-doc-opening":        "Pada hari ini, Minggu tanggal 22 November 2026",
		"closing-doc-cashier":        "Siti Staf",
		"closing-doc-expected":       "Rp 200.000",
		"closing-doc-counted":        "Rp 195.000",
		"closing-doc-difference":     "kurang Rp 5.000",
		"closing-doc-reason":         "uang kembalian kurang",
		"closing-doc-words":          "Seratus sembilan puluh lima ribu rupiah",
		"closing-doc-place":          "Bandung, 22 November 2026",
		"closing-doc-sign-cashier":   "Yang menyerahkan, Kasir Siti Staf",
		"closing-doc-sign-bursar":    "Yang menerima, Bendahara Sri Wahyuni, S.E. NIP. 198703152010012008",
		"closing-doc-sign-principal": "Mengetahui, Kepala Sekolah Drs. Ahmad Fauzi, M.Pd. NIP. 196805121994031004",
		"school-name":                "SMP Nusantara",
	} {
		if got := spaced(doc.Doc.Find(`[data-testid="` + id + `"]`)); !strings.Contains(got, want) {
			t.Errorf("%s = %q, want %q", id, got, want)
		}
	}
	if r := doc.Doc.Find(`[data-testid="closing-doc-receipt"]`); r.Length() != 1 || spaced(r) != "1 10.00 KW-2 2024002 Budi Santoso Kelas 10B Rp 200.000" {
		t.Errorf("the receipts counted %q", spaced(r))
	}
	for path, form := range map[string]url.Values{
		"/closing": {"day": {"2026-11-22"}, "payments": {"0"}, "expected": {"0"}, "counted": {"0"}},
		strings.TrimSuffix(printURL, "/") + "/reopen": {"reason": {"kepala sekolah"}},
	} {
		if res := prin.Post(path, form); res.StatusCode != http.StatusForbidden {
			t.Errorf("the principal's POST %s: %d", path, res.StatusCode)
		}
	}

	// An admin reopens Siti's day, with a reason (audited); Siti takes the payment after all.
	adm := p.SignedIn(t, "admin")
	page = adm.Get("/closing")
	reopen := page.Doc.Find(`[data-testid="closing-drawer"][data-cashier="siti"] [data-testid="closing-reopen"] form`).AttrOr("action", "")
	if reopen == "" {
		t.Fatal("no reopening for the admin")
	}
	if res := adm.Post(reopen, url.Values{"reason": {" "}}); res.StatusCode != http.StatusUnprocessableEntity ||
		res.Doc.Find(`[data-testid="error-reopen"]`).Length() != 1 {
		t.Fatalf("reopened without a reason: %d", res.StatusCode)
	}
	if res := adm.Post(reopen, url.Values{"reason": {"uang Rp 5.000 ditemukan di laci"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("reopening: %d %q", res.StatusCode, billsText(res.Doc.Find("main")))
	}
	if doc := prin.Get(printURL); !strings.Contains(billsText(doc.Doc.Find(`[data-testid="closing-void"]`)), "TIDAK BERLAKU") {
		t.Errorf("the reopened berita acara is not marked void: %q", billsText(doc.Doc.Find("article")))
	}
	if res := siti.Post("/payments", url.Values{"nis": {"2024003"}, "ref": {"KW-3"}, "component": {s.id("Study tour")}, "total": {"500000"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("a payment after the reopening: %d %q", res.StatusCode, billsText(res.Doc.Find("main")))
	}
	page = siti.Get("/closing")
	if got := billsText(page.Doc.Find(`[data-testid="closing-mine-expected"]`)); got != "Rp 700.000" {
		t.Errorf("Siti's expected after the reopening %q", got)
	}
	if res := siti.Post("/closing", closingForm(t, page, "700000", "")); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("Siti closes again: %d %q", res.StatusCode, billsText(res.Doc.Find("main")))
	}
	page = adm.Get("/audit")
	for _, want := range []string{"Menutup kas", "Membuka kembali tutup kas"} {
		if !strings.Contains(billsText(page.Doc.Find("main")), want) {
			t.Errorf("the audit log has no %q", want)
		}
	}
	// The page through HTMX (the day picker) is the partial.
	if res := prin.Get("/closing?day=2026-11-21", "HX-Request", "true"); res.StatusCode != http.StatusOK || strings.Contains(res.Body, "<html") ||
		res.Doc.Find(`[data-testid="closing-none"]`).Length() != 1 {
		t.Errorf("yesterday through htmx: %d", res.StatusCode)
	}
	if res := prin.Get("/closing?day=2099-01-01"); res.StatusCode != http.StatusOK || res.Doc.Find(`[data-testid="closing-notice"]`).Length() != 1 {
		t.Errorf("a day to come: %d", res.StatusCode)
	}
	if res := prin.Get("/closing/nope"); res.StatusCode != http.StatusNotFound {
		t.Errorf("an unknown closing: %d", res.StatusCode)
	}
}
