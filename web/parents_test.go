package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/store"
)

// The parents' contacts: the form keeps what was typed on a mistake, normalises the
// number by the students' rule, keeps the opt-outs; the card shows them; only finance
// and admins may change them.
func TestStudentContactsForm(t *testing.T) {
	t.Parallel()
	p := startLetters(t)
	c := p.SignedIn(t, "finance")

	// Until staff set another, the student's phone at the service is the parents' WhatsApp.
	card := c.Get("/students/3001").Doc.Find(`[data-testid="parents-card"]`)
	if got := billsText(card.Find(`[data-testid="parents-whatsapp"]`)); !strings.Contains(got, "081234560001") || !strings.Contains(got, "nomor HP siswa") {
		t.Errorf("default WhatsApp %q", got)
	}
	if card.Find(`[data-testid="parents-edit"]`).AttrOr("href", "") != "/students/3001/contacts" {
		t.Error("no edit link")
	}

	res := c.Post("/students/3001/contacts", url.Values{"parent_name": {"  Ibu  Sri Wahyuni "}, "whatsapp": {"(022) 765-4321"},
		"email": {"bukan-email"}, "email_opt_out": {"1"}})
	if res.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("bad contacts: %d", res.StatusCode)
	}
	doc := res.Doc
	if doc.Find(`#f-parent_name`).AttrOr("value", "") != "  Ibu  Sri Wahyuni " || doc.Find(`#f-whatsapp`).AttrOr("value", "") != "(022) 765-4321" ||
		doc.Find(`#f-email`).AttrOr("value", "") != "bukan-email" || doc.Find(`[data-testid="optout-email"][checked]`).Length() != 1 {
		t.Error("the form lost what was typed")
	}
	if doc.Find(`#f-whatsapp-error`).Length() != 1 || doc.Find(`#f-email-error`).Length() != 1 {
		t.Errorf("errors beside the fields: %q", billsText(doc.Find(".field-error")))
	}
	if _, err := p.DB.ParentContacts(t.Context(), "3001"); err == nil {
		t.Fatal("a refused form was stored")
	}

	res = c.Post("/students/3001/contacts", url.Values{"parent_name": {"  Ibu  Sri Wahyuni "}, "whatsapp": {"+62 813-1111-2222"},
		"email": {"sri@example.id"}, "email_opt_out": {"1"}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/students/3001" {
		t.Fatalf("save: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	got, err := p.DB.ParentContacts(t.Context(), "3001")
	if err != nil || got.Name != "Ibu Sri Wahyuni" || got.WhatsApp != "+6281311112222" || got.Email != "sri@example.id" || !got.EmailOptOut || got.WhatsAppOptOut {
		t.Fatalf("stored %+v %v", got, err)
	}
	card = c.Get("/students/3001").Doc.Find(`[data-testid="parents-card"]`)
	if got := billsText(card.Find(`[data-testid="parents-whatsapp"]`)); got != "+6281311112222" {
		t.Errorf("WhatsApp after saving %q", got)
	}
	if got := billsText(card.Find(`[data-testid="parents-email"]`)); !strings.Contains(got, "tidak mau dihubungi") {
		t.Errorf("the e-mail opt-out is not shown: %q", got)
	}
	es, _, _ := p.DB.ListAudit(t.Context(), store.AuditFilter{Action: "parents.contacts"})
	if len(es) != 1 || es[0].Args["nis"] != "3001" || es[0].Args["opt_out"] != "email" || es[0].Actor != "finance" {
		t.Errorf("audit %+v", es)
	}

	// Principals see the card, not the edit; the form and its POST are refused.
	pc := p.SignedIn(t, "principal")
	if pc.Get("/students/3001").Doc.Find(`[data-testid="parents-edit"], [data-testid="parents-renew"]`).Length() != 0 {
		t.Error("principal offered edits")
	}
	if res := pc.Get("/students/3001/contacts"); res.StatusCode != http.StatusForbidden {
		t.Errorf("principal form: %d", res.StatusCode)
	}
	if res := pc.Post("/students/3001/contacts", url.Values{"parent_name": {"X"}}); res.StatusCode != http.StatusForbidden {
		t.Errorf("principal save: %d", res.StatusCode)
	}
	if res := pc.Post("/students/3001/parent-link", confirmYes()); res.StatusCode != http.StatusForbidden {
		t.Errorf("principal renews: %d", res.StatusCode)
	}
}

// The parent page: the link on the student page opens it without signing in; it shows
// only that student, what costs what today, the payments with their receipts; it is not
// indexed; a wrong and a renewed link are the same plain 404; guessing is cut off.
func TestParentPage(t *testing.T) {
	t.Parallel()
	p := startLetters(t)
	staff := p.SignedIn(t, "finance")
	ctx := t.Context()
	// Dodi (3004) paid November at the bank: a receipt on his page only.
	var dodi []string
	for b, err := range p.App.Ledger.AllForStudent(ctx, "3004", billing.Query{}) {
		if err != nil {
			t.Fatal(err)
		}
		dodi = append(dodi, b.ComponentID)
	}
	if _, err := p.Billing.Pay(ctx, billing.Payment{NIS: "3004", RefNumber: "BANK-7788", ComponentIDs: dodi}); err != nil {
		t.Fatal(err)
	}
	p.SyncLedger(t)

	link := staff.Get("/students/3001").Doc.Find(`[data-testid="parents-link"]`).AttrOr("value", "")
	if !strings.HasPrefix(link, "/p/") || len(link) < 35 {
		t.Fatalf("link %q", link)
	}
	parent := p.NewClient(t)
	res := parent.Get(link)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("parent page: %d", res.StatusCode)
	}
	if res.Header.Get("X-Robots-Tag") == "" || !strings.Contains(res.Header.Get("X-Robots-Tag"), "noindex") ||
		res.Doc.Find(`meta[name="robots"][content*="noindex"]`).Length() != 1 || res.Header.Get("Referrer-Policy") != "no-referrer" {
		t.Errorf("indexable: %q", res.Header.Get("X-Robots-Tag"))
	}
	doc := res.Doc
	if billsText(doc.Find(`[data-testid="parent-student"]`)) != "Ani Wijaya" || billsText(doc.Find(`[data-testid="parent-pay-nis"]`)) != "3001" {
		t.Errorf("student %q", billsText(doc.Find(`[data-testid="parent-head"]`)))
	}
	if got := billsText(doc.Find(`[data-testid="parent-line-price"]`)); got != "Rp 330.000" {
		t.Errorf("today's price %q", got)
	}
	if got := billsText(doc.Find(`[data-testid="parent-total"]`)); got != "Jumlah bila dibayar hari ini Rp 330.000" {
		t.Errorf("total %q", got)
	}
	if got := billsText(doc.Find(`[data-testid="parent-later-line"]`)); !strings.Contains(got, "SPP Desember") {
		t.Errorf("later %q", got)
	}
	for _, other := range []string{"Dodi", "3004", "Bayu", "BANK-7788", "Kelas 8B"} {
		if strings.Contains(res.Body, other) {
			t.Errorf("the page shows another student's %q", other)
		}
	}
	if doc.Find(`a[href="/students"], nav.sidenav`).Length() != 0 {
		t.Error("the parent page links into the portal")
	}

	// Dodi's page: his payment and its receipt; Ani's token cannot open Dodi's receipt.
	dodiLink := staff.Get("/students/3004").Doc.Find(`[data-testid="parents-link"]`).AttrOr("value", "")
	dp := parent.Get(dodiLink).Doc
	rl := dp.Find(`[data-testid="parent-receipt-link"]`).AttrOr("href", "")
	if dp.Find(`[data-testid="parent-payment"]`).Length() != 1 || rl == "" {
		t.Fatalf("Dodi's payments: %q", billsText(dp.Find(`[data-testid="parent-payments"]`)))
	}
	rec := parent.Get(rl)
	if rec.StatusCode != http.StatusOK || billsText(rec.Doc.Find(`[data-testid="parent-receipt-ref"]`)) != "BANK-7788" ||
		billsText(rec.Doc.Find(`[data-testid="parent-receipt-total"]`)) != "Total Rp 330.000" {
		t.Errorf("receipt: %d %q", rec.StatusCode, billsText(rec.Doc.Find(`[data-testid="parent-receipt"]`)))
	}
	// However often a parent opens or prints it, it is a copy: the original is the
	// counter's receipt or the bank's proof.
	if got := billsText(rec.Doc.Find(`[data-testid="parent-receipt"] [data-testid="receipt-copy"] .receipt-copy-mark`)); got != "SALINAN" {
		t.Errorf("the parent's receipt is marked %q, want SALINAN", got)
	}
	if res := parent.Get(link + "/receipt?ref=BANK-7788"); res.StatusCode != http.StatusNotFound {
		t.Errorf("another student's receipt through Ani's link: %d", res.StatusCode)
	}
	if res := parent.Get(link + "/letter"); res.StatusCode != http.StatusOK || res.Doc.Find(`[data-testid="letter"][data-nis="3001"]`).Length() != 1 {
		t.Errorf("letter: %d", res.StatusCode)
	}

	// Renewed: the old link is a 404, the same page as a wrong one; the new one works.
	if res := staff.Post("/students/3001/parent-link", confirmYes()); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("renew: %d", res.StatusCode)
	}
	renewed := staff.Get("/students/3001").Doc.Find(`[data-testid="parents-link"]`).AttrOr("value", "")
	if renewed == link {
		t.Fatal("the link did not change")
	}
	old := parent.Get(link)
	wrongLink := "/p/" + strings.Repeat("A", len(link)-3)
	wrong := parent.Get(wrongLink)
	if old.StatusCode != http.StatusNotFound || wrong.StatusCode != http.StatusNotFound {
		t.Fatalf("old %d, wrong %d", old.StatusCode, wrong.StatusCode)
	}
	// The same page, but for the address it was asked at (the language switch returns to it).
	if strip(strings.ReplaceAll(old.Body, link, "/p/…")) != strip(strings.ReplaceAll(wrong.Body, wrongLink, "/p/…")) || strings.Contains(old.Body, "Ani") {
		t.Errorf("a renewed and a wrong link answer differently:\n%s\n---\n%s", strip(old.Body), strip(wrong.Body))
	}
	if parent.Get(renewed).StatusCode != http.StatusOK {
		t.Error("the new link does not open")
	}
	es, _, _ := p.DB.ListAudit(ctx, store.AuditFilter{Action: "parents.link_renew"})
	if len(es) != 1 || es[0].Target != "3001" {
		t.Errorf("renewal audited as %+v", es)
	}

	// Guessing: wrong links from one address are cut off, real ones too after that.
	var last *http.Response
	for i := range 20 {
		r := parent.Get("/p/guess" + strings.Repeat("x", i))
		last = r.Response
		if r.StatusCode == http.StatusTooManyRequests {
			break
		}
	}
	if last.StatusCode != http.StatusTooManyRequests || last.Header.Get("Retry-After") == "" {
		t.Fatalf("guessing never limited: %d", last.StatusCode)
	}
	if parent.Get(renewed).StatusCode != http.StatusTooManyRequests {
		t.Error("the address that guessed is not limited")
	}
}

// strip drops what differs between two renderings of one page (the CSRF token).
func strip(body string) string {
	if i := strings.Index(body, `name="csrf-token"`); i >= 0 {
		body = body[:i] + body[min(i+120, len(body)):]
	}
	for {
		i := strings.Index(body, `name="csrf_token" value="`)
		if i < 0 {
			return body
		}
		j := strings.Index(body[i+25:], `"`)
		body = body[:i] + body[i+25+j+1:]
	}
}

// The WhatsApp opt-out is honoured by the follow-up too: the button says why instead,
// the follow-up is refused with what to do, nothing is recorded; the parents' own number
// is the one wa.me opens.
func TestFollowUpHonoursTheParentsContacts(t *testing.T) {
	t.Parallel()
	p := startLetters(t)
	c := p.SignedIn(t, "finance")
	if res := c.Post("/students/3001/contacts", url.Values{"whatsapp": {"0813-1111-2222"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("save: %d", res.StatusCode)
	}
	res := c.Post("/students/3001/followup", url.Values{"channel": {"whatsapp"}})
	if loc := res.Header.Get("Location"); res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "https://wa.me/6281311112222?") {
		t.Fatalf("follow-up to the parents' number: %d %q", res.StatusCode, loc)
	}
	if res := c.Post("/students/3001/contacts", url.Values{"whatsapp": {"0813-1111-2222"}, "whatsapp_opt_out": {"1"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("save: %d", res.StatusCode)
	}
	sp := c.Get("/students/3001").Doc
	if a := sp.Find(`[data-testid="student-whatsapp-phone"]`); !strings.Contains(a.AttrOr("title", ""), "tidak ingin menerima pesan WhatsApp") ||
		sp.Find(`[data-testid="student-whatsapp"]`).Length() != 0 {
		t.Errorf("the student page offers WhatsApp to parents who opted out: %q", a.AttrOr("title", ""))
	}
	res = c.Post("/students/3001/followup", url.Values{"channel": {"whatsapp"}})
	if res.StatusCode != http.StatusUnprocessableEntity || res.Header.Get("Location") != "" ||
		!strings.Contains(billsText(res.Doc.Find(`[data-testid="followup-message"]`)), "tidak ingin menerima pesan WhatsApp") {
		t.Errorf("opted out: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	if es, _, _ := p.DB.ListAudit(t.Context(), store.AuditFilter{Action: "followup.whatsapp"}); len(es) != 1 {
		t.Errorf("%d WhatsApp follow-ups recorded, want the one before the opt-out", len(es))
	}
}
