package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/sekolah/portal/internal/changes"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/store"
)

// auditAll is the log over a range that holds entries stamped with the real clock
// whatever the portal's clock says.
const auditAll = "/audit?from=2000-01-01&to=2999-12-31"

// auditRow finds the row of the first entry of action on the page.
func auditRowOf(doc *goquery.Document, action string) *goquery.Selection {
	return doc.Find(`[data-testid="audit-row"][data-action="` + action + `"]`).First()
}

func TestAuditLogInWords(t *testing.T) {
	t.Parallel()
	p, s := startCounter(t)
	ctx := t.Context()
	c := p.SignedIn(t, "finance")
	if res := c.Post("/payments", url.Values{"nis": {"2024001"}, "ref": {"KW/2026/11/0001"}, "component": {s.id("SPP Oktober"), s.id("SPP Desember")},
		"total": {"535000"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("pay: %d", res.StatusCode)
	}
	// Entries written before they carried arguments: words from the action and target.
	for _, e := range []store.AuditEntry{
		{Actor: "finance", ActorRole: "finance", Action: changes.ActionStudentUpdate, Target: "2024003", Outcome: "ok", Detail: "Dewi Lestari"},
		{Actor: "finance", ActorRole: "finance", Action: "upload.receive", Target: "0f8c2d6e-upload", Outcome: "ok",
			Detail: `components "tagihan november.xlsx", 5120 bytes, sha256 9f86d081884c7d659a2feaa0c55ad015`},
		{Actor: "system", ActorRole: "admin", Action: "staff.create", Target: "finance", Outcome: "ok", Detail: "role finance"},
		{Actor: ledger.ActorService, ActorRole: ledger.ActorRole, Action: ledger.ActionCallback, Target: "2024003", Outcome: "ok",
			Detail: "ref BANK-001 via BCA, 1 component, Rp 150000"},
	} {
		if err := p.DB.AppendAudit(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	admin := p.SignedIn(t, "admin")
	doc := admin.Get(auditAll).Doc

	pay := auditRowOf(doc, changes.ActionPay)
	words := billsText(pay.Find(`[data-testid="audit-words"]`))
	if words != "Pembayaran di loket dicatat — Siti Aminah (NIS 2024001), 2 tagihan, Rp 535.000, kuitansi KW/2026/11/0001" {
		t.Errorf("payment in words: %q", words)
	}
	if href := pay.Find(`[data-testid="audit-link"]`).AttrOr("href", ""); href != "/students/2024001" {
		t.Errorf("payment links to %q", href)
	}
	if actor := billsText(pay.Find(`[data-testid="audit-actor"]`)); actor != "Finance Staf" {
		t.Errorf("actor %q", actor)
	}
	// The codes are there for whoever opens the details, not in the words.
	if strings.Contains(words, "upstream.") || !strings.Contains(pay.Find(`[data-testid="audit-details"]`).Text(), changes.ActionPay) {
		t.Error("codes in the words, or missing from the details")
	}

	old := auditRowOf(doc, changes.ActionStudentUpdate)
	if got := billsText(old.Find(`[data-testid="audit-words"]`)); got != "Data siswa diubah — Dewi Lestari (NIS 2024003)" {
		t.Errorf("older entry: %q", got)
	}
	up := auditRowOf(doc, "upload.receive")
	if got := billsText(up.Find(`[data-testid="audit-words"]`)); got != "Berkas diunggah — tagihan november.xlsx" ||
		up.Find(`[data-testid="audit-link"]`).AttrOr("href", "") != "/uploads/0f8c2d6e-upload" {
		t.Errorf("upload: %q", got)
	}
	for _, hidden := range []string{"0f8c2d6e", "9f86d081", "system"} {
		if strings.Contains(billsText(doc.Find(`[data-testid="audit-words"], [data-testid="audit-actor"]`)), hidden) {
			t.Errorf("%q shown outside the details", hidden)
		}
	}
	if got := billsText(auditRowOf(doc, "staff.create").Find(`td`).Eq(1)); got != "Portal (otomatis)" {
		t.Errorf("the portal's own entry names %q", got)
	}
	bank := auditRowOf(doc, ledger.ActionCallback)
	if got := billsText(bank.Find(`[data-testid="audit-words"]`)); got != "Pembayaran dari bank diterima — Dewi Lestari (NIS 2024003)" {
		t.Errorf("bank payment: %q", got)
	}
	if got := billsText(bank.Find(`td`).Eq(1)); got != "Layanan pembayaran" {
		t.Errorf("the service's entry names %q", got)
	}
	if opt := doc.Find(`#f-action option[value="` + changes.ActionPay + `"]`).Text(); opt != "Pembayaran di loket dicatat" {
		t.Errorf("action filter offers %q", opt)
	}

	// The same in English.
	admin.Post("/lang", url.Values{"lang": {"en"}})
	doc = admin.Get(auditAll).Doc
	if got := billsText(auditRowOf(doc, changes.ActionPay).Find(`[data-testid="audit-words"]`)); got != "Counter payment recorded — Siti Aminah (NIS 2024001), 2 items, Rp 535.000, receipt KW/2026/11/0001" {
		t.Errorf("English: %q", got)
	}
	if got := billsText(auditRowOf(doc, "upload.receive").Find(`[data-testid="audit-words"]`)); got != "File uploaded — tagihan november.xlsx" {
		t.Errorf("English upload: %q", got)
	}
}
