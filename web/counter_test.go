package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/school"
	"github.com/sekolah/portal/internal/store"
)

// startCounter is the bills school with its students in the roster (as a sync leaves
// them) and a school profile numbering receipts KW/{YYYY}/{MM}/{seq}.
func startCounter(t *testing.T) (*portaltest.Portal, billsSchool) {
	t.Helper()
	p, s := startBills(t)
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
		ReceiptPattern: "KW/{YYYY}/{MM}/{seq}", ReceiptFooter: "Simpan kuitansi ini.",
	}); err != nil {
		t.Fatal(err)
	}
	return p, s
}

func TestCounterSearchByNameOrNIS(t *testing.T) {
	t.Parallel()
	p, _ := startCounter(t)
	c := p.SignedIn(t, "finance")

	// As typed, through HTMX: the matches in place, each opening the student.
	res := c.Get("/payments/new?q=budi", "HX-Request", "true")
	if res.StatusCode != http.StatusOK || strings.Contains(res.Body, "<html") {
		t.Fatalf("htmx search: %d", res.StatusCode)
	}
	if push := res.Header.Get("HX-Push-Url"); push != "/payments/new?q=budi" {
		t.Errorf("HX-Push-Url = %q", push)
	}
	m := res.Doc.Find(`[data-testid="payment-match"]`)
	if m.Length() != 1 || m.AttrOr("href", "") != "/payments/new?nis=2024002" || !strings.Contains(billsText(m), "Budi Santoso 2024002 · Kelas 10B") {
		t.Fatalf("matches: %d %q %q", m.Length(), m.AttrOr("href", ""), billsText(m))
	}
	// Without JS, the same form as a page.
	if res := c.Get("/payments/new?q=Aminah"); res.StatusCode != http.StatusOK || res.Doc.Find(`[data-testid="payment-match"][data-nis="2024001"]`).Length() != 1 ||
		res.Doc.Find(`#f-q`).AttrOr("value", "") != "Aminah" {
		t.Fatalf("page search: %d", res.StatusCode)
	}
	// A whole NIS opens the student at once.
	res = c.Get("/payments/new?q=2024001", "HX-Request", "true")
	if res.Doc.Find(`[data-testid="payment-form"]`).Length() != 1 || res.Header.Get("HX-Push-Url") != "/payments/new?nis=2024001" {
		t.Fatalf("NIS search: %q", billsText(res.Doc.Find("section")))
	}
	if got := billsText(res.Doc.Find(`[data-testid="payment-class"]`)); got != "Kelas 7A" {
		t.Errorf("class %q", got)
	}
	// Nothing found says so in place, for a name and for a NIS.
	for q, want := range map[string]string{
		"zainal":  "Tidak ada siswa bernama “zainal”",
		"2099999": "NIS 2099999 tidak ada di daftar siswa maupun di layanan pembayaran",
	} {
		res := c.Get("/payments/new?"+url.Values{"q": {q}}.Encode(), "HX-Request", "true")
		if got := billsText(res.Doc.Find(`[data-testid="payment-no-match"]`)); res.StatusCode != http.StatusOK || !strings.Contains(got, want) {
			t.Errorf("%s: %d %q", q, res.StatusCode, got)
		}
	}
}

func TestCounterSelectedTotalAndSuggestedReceipt(t *testing.T) {
	t.Parallel()
	p, s := startCounter(t)
	c := p.SignedIn(t, "finance")
	late, dec := s.id("SPP Oktober"), s.id("SPP Desember")

	// Coming back from the confirmation with one box ticked: the total is of that one.
	res := c.Get("/payments/new?" + url.Values{"nis": {"2024001"}, "component": {late}}.Encode())
	if got := billsText(res.Doc.Find(`[data-testid="selected-total"]`)); got != "Rp 275.000" {
		t.Errorf("selected total %q", got)
	}
	if got := billsText(res.Doc.Find(`[data-testid="selected-count"]`)); got != "1 tagihan dipilih" {
		t.Errorf("count %q", got)
	}
	box := res.Doc.Find(`input[name="component"][value="` + dec + `"]`)
	if box.AttrOr("data-amount", "") != "260000" || res.Doc.Find(`form[data-sum]`).Length() != 1 {
		t.Errorf("the page script cannot sum: amount %q", box.AttrOr("data-amount", ""))
	}
	if got := billsText(res.Doc.Find(`[data-testid="payable-total"]`)); got != "Rp 535.000" {
		t.Errorf("payable total %q", got)
	}
	// The next number of the school's pattern is suggested; paying uses it up.
	if ref := res.Doc.Find(`#f-ref`).AttrOr("value", ""); ref != "KW/2026/11/0001" {
		t.Fatalf("suggested %q", ref)
	}
	res = c.Post("/payments", url.Values{"nis": {"2024001"}, "ref": {"KW/2026/11/0001"}, "component": {late}, "total": {"275000"}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("pay: %d %s", res.StatusCode, billsText(res.Doc.Find("main")))
	}
	if ref := c.Get("/payments/new?nis=2024002").Doc.Find(`#f-ref`).AttrOr("value", ""); ref != "KW/2026/11/0002" {
		t.Errorf("next suggestion %q", ref)
	}
}

func TestCounterWarnsOfAUsedReceiptNumber(t *testing.T) {
	t.Parallel()
	p, s := startCounter(t)
	c := p.SignedIn(t, "finance")
	if res := c.Post("/payments", url.Values{"nis": {"2024001"}, "ref": {"KW-9"}, "component": {s.id("SPP Oktober")}, "total": {"275000"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("first payment: %d", res.StatusCode)
	}
	nov := s.id("SPP November")
	form := url.Values{"nis": {"2024002"}, "ref": {"KW-9"}, "component": {nov}}

	// The confirmation says whose payment has the number, before anything is sent.
	res := c.Post("/payments/confirm", form)
	warn := billsText(res.Doc.Find(`[data-testid="ref-taken"]`))
	if res.StatusCode != http.StatusOK || !strings.Contains(warn, "KW-9 sudah dipakai untuk pembayaran Siti Aminah (NIS 2024001)") ||
		!strings.Contains(warn, "Rp 275.000") || res.Doc.Find(`[data-testid="ref-reuse"][required]`).Length() != 1 {
		t.Fatalf("confirm: %d %q", res.StatusCode, warn)
	}
	if href := res.Doc.Find(`[data-testid="pay-change-ref"]`).AttrOr("href", ""); !strings.Contains(href, "nis=2024002") {
		t.Errorf("change link %q", href)
	}
	// Paying without the tick is refused and nothing is sent.
	pay := url.Values{"nis": {"2024002"}, "ref": {"KW-9"}, "component": {nov}, "total": {"200000"}}
	res = c.Post("/payments", pay)
	if res.StatusCode != http.StatusConflict || res.Doc.Find(`[data-testid="ref-reuse-error"]`).Length() != 1 {
		t.Fatalf("pay without the tick: %d", res.StatusCode)
	}
	if got := billByID(t, p, "2024002", nov); got.State != billing.StateProvisioned {
		t.Fatalf("paid without the tick: %+v", got)
	}
	// With it, the payment goes.
	pay.Set("reuse_ref", "yes")
	if res := c.Post("/payments", pay); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("pay with the tick: %d", res.StatusCode)
	}
}

func TestReceiptHeaderClassCashierAndWords(t *testing.T) {
	t.Parallel()
	p, s := startCounter(t)
	c := p.SignedIn(t, "finance")
	if res := c.Post("/payments", url.Values{"nis": {"2024001"}, "ref": {"KW/2026/11/0001"}, "component": {s.id("SPP Oktober"), s.id("SPP Desember")},
		"total": {"535000"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("pay: %d", res.StatusCode)
	}
	// Read by someone else later: the cashier is who recorded it, not the reader.
	admin := p.SignedIn(t, "admin")
	rc := admin.Get("/payments/receipt?" + url.Values{"nis": {"2024001"}, "ref": {"KW/2026/11/0001"}}.Encode()).Doc
	for sel, want := range map[string]string{
		`[data-testid="school-name"]`:     "SMP Nusantara",
		`[data-testid="school-npsn"]`:     "NPSN 20212345",
		`[data-testid="school-phone"]`:    "Telp. (022) 765-4321",
		`[data-testid="receipt-class"]`:   "Kelas 7A",
		`[data-testid="receipt-cashier"]`: "Finance Staf",
		`[data-testid="receipt-words"]`:   "Terbilang: Lima ratus tiga puluh lima ribu rupiah",
		`[data-testid="receipt-footer"]`:  "Simpan kuitansi ini.",
	} {
		if got := billsText(rc.Find(sel)); got != want {
			t.Errorf("%s = %q, want %q", sel, got, want)
		}
	}
	if n := rc.Find(`[data-testid="school-address"]`).Length(); n != 2 {
		t.Errorf("%d address lines", n)
	}
	// In English, the words are English.
	admin.Post("/lang", url.Values{"lang": {"en"}})
	rc = admin.Get("/payments/receipt?" + url.Values{"nis": {"2024001"}, "ref": {"KW/2026/11/0001"}}.Encode()).Doc
	if got := billsText(rc.Find(`[data-testid="receipt-words"]`)); got != "In words: Five hundred thirty-five thousand rupiah" {
		t.Errorf("English words %q", got)
	}
	// A bank payment names no cashier.
	rc = admin.Get("/payments/receipt?" + url.Values{"nis": {"2024003"}, "ref": {"BANK-001"}}.Encode()).Doc
	if rc.Find(`[data-testid="receipt-cashier"]`).Length() != 0 || rc.Find(`[data-testid="receipt-via-service"]`).Length() != 1 {
		t.Error("a bank payment shows a cashier")
	}
}
