package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/changes"
	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/sandbox"
	"github.com/sekolah/portal/internal/store"
)

// correctionsSeed is a student with three components: SPP Desember (unpaid), SPP
// November (paid) and Seragam (expired).
func correctionsSeed(t *testing.T, p *portaltest.Portal) (unpaid, paid, expired billing.Bill) {
	t.Helper()
	bills := seedStudent(t, p, billing.Student{NIS: "2601", Name: "Budi Santoso", Description: "Kelas 7A"},
		spp("SPP Desember", 450_000, 25_000, utcDay(2026, 12, 10), utcDay(2027, 1, 31)),
		spp("SPP November", 450_000, 25_000, utcDay(2026, 11, 10), utcDay(2027, 1, 31)),
		spp("Seragam", 300_000, 0, utcDay(2026, 9, 10), utcDay(2026, 10, 31)))
	if _, err := p.Billing.Pay(context.Background(), billing.Payment{NIS: "2601", ComponentIDs: []string{bills[1].ComponentID}}); err != nil {
		t.Fatal(err)
	}
	p.SyncLedger(t)
	return bills[0], bills[1], bills[2]
}

func editForm(b billing.Bill) url.Values {
	return url.Values{"name": {b.Name}, "account_code": {b.AccountCode}, "amount": {"450000"}, "penalty": {"25000"},
		"due": {b.Due.Format("2006-01-02")}, "expiry": {b.Expiry.Format("2006-01-02")}, "active": {""}, "notes": {b.Notes}}
}

func TestComponentEdit(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: studentsNow, UpstreamTimeout: 500 * time.Millisecond})
	unpaid, paid, expired := correctionsSeed(t, p)
	c := p.SignedIn(t, "finance")
	ctx := context.Background()
	editURL := "/students/2601/components/" + unpaid.ComponentID + "/edit"

	// The student page offers edit and cancel on unpaid rows, and says why not on paid ones.
	page := c.Get("/students/2601")
	if n := page.Doc.Find(`[data-testid="bill-edit"]`).Length(); n != 2 {
		t.Errorf("%d edit links, want 2 (unpaid and expired)", n)
	}
	row := page.Doc.Find(`[data-testid="bill-row"][data-component="` + paid.ComponentID + `"]`)
	if row.Find(`[data-testid="bill-edit"], [data-testid="bill-cancel"], [data-testid="bill-select"]`).Length() != 0 ||
		!strings.Contains(row.Find(`[data-testid="bill-paid-kept"]`).Text(), "Sudah dibayar: riwayat pembayaran disimpan") {
		t.Errorf("paid row: %s", row.Text())
	}

	// The form shows the component's values.
	res := c.Get(editURL)
	if res.StatusCode != http.StatusOK || svalue(res, "#f-amount") != "450.000" || svalue(res, "#f-due") != "2026-12-10" || svalue(res, "#f-name") != "SPP Desember" {
		t.Fatalf("edit form: %d %q %q", res.StatusCode, svalue(res, "#f-amount"), svalue(res, "#f-due"))
	}
	if res.Doc.Find(`[data-testid="edit-expired-note"]`).Length() != 0 {
		t.Error("unpaid component says it expired")
	}

	// The component rules, as when creating one: 422, every typed value kept.
	bad := editForm(unpaid)
	bad.Set("amount", "Rp 4x0.000")
	bad.Set("due", "2027-02-10")
	bad.Set("name", "SPP Desember (revisi)")
	for _, hx := range []bool{false, true} {
		var headers []string
		if hx {
			headers = []string{"HX-Request", "true"}
		}
		res = c.Post(editURL, bad, headers...)
		if res.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("invalid edit (htmx %v): %d", hx, res.StatusCode)
		}
		if stext(res, `[data-testid="error-amount"]`) == "" || !strings.Contains(stext(res, `[data-testid="error-due"]`), "setelah tanggal kedaluwarsa") {
			t.Errorf("errors: amount %q due %q", stext(res, `[data-testid="error-amount"]`), stext(res, `[data-testid="error-due"]`))
		}
		if svalue(res, "#f-amount") != "Rp 4x0.000" || svalue(res, "#f-due") != "2027-02-10" || svalue(res, "#f-name") != "SPP Desember (revisi)" {
			t.Error("typed values lost")
		}
		if hx && res.Doc.Find("html").Length() != 0 && res.Doc.Find(`nav.breadcrumbs`).Length() != 0 {
			t.Error("htmx got the whole page")
		}
	}
	// Nothing changed: said, nothing sent.
	if res = c.Post(editURL, editForm(unpaid)); res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(stext(res, `[data-testid="form-error"]`), "Tidak ada yang diubah") {
		t.Errorf("no change: %d %q", res.StatusCode, stext(res, `[data-testid="form-error"]`))
	}

	// A good edit sends only what changed, and the audit entry names it.
	good := editForm(unpaid)
	good.Set("amount", "500.000")
	good.Set("notes", "naik per Januari")
	res = c.Post(editURL, good)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/students/2601" {
		t.Fatalf("edit: %d %s %q", res.StatusCode, res.Header.Get("Location"), stext(res, `[data-testid="form-error"]`))
	}
	got, err := p.Billing.GetComponent(ctx, unpaid.ComponentID)
	if err != nil || got.Amount != 500_000 || got.Notes != "naik per Januari" || got.Penalty != 25_000 || !got.Due.Equal(unpaid.Due) || got.Name != "SPP Desember" {
		t.Fatalf("at the service: %+v %v", got, err)
	}
	entries, _, _ := p.DB.ListAudit(ctx, store.AuditFilter{Action: changes.ActionComponentUpdate})
	if len(entries) != 1 || entries[0].Args["fields"] != "amount,notes" || entries[0].Outcome != changes.OutcomeOK || !strings.Contains(entries[0].Detail, "amount 450000 → 500000") {
		t.Errorf("audit: %+v", entries)
	}
	if page := c.Get("/students/2601"); !strings.Contains(page.Doc.Find(`[data-testid="bill-row"][data-component="`+unpaid.ComponentID+`"] [data-testid="bill-amount"]`).Text(), "500.000") {
		t.Error("the student page does not show the new amount")
	}

	// An expired one may be edited; the form says a new expiry makes it payable again.
	expURL := "/students/2601/components/" + expired.ComponentID + "/edit"
	if res := c.Get(expURL); !strings.Contains(stext(res, `[data-testid="edit-expired-note"]`), "bisa dibayar lagi") {
		t.Errorf("expired note: %q", stext(res, `[data-testid="edit-expired-note"]`))
	}
	ef := editForm(expired)
	ef.Set("amount", "300000")
	ef.Set("penalty", "0")
	ef.Set("expiry", "2027-03-31")
	if res := c.Post(expURL, ef, "HX-Request", "true"); res.StatusCode != http.StatusOK || res.Header.Get("HX-Redirect") != "/students/2601" {
		t.Fatalf("expired edit: %d %q", res.StatusCode, stext(res, `[data-testid="form-error"]`))
	}
	if got, _ := p.Billing.GetComponent(ctx, expired.ComponentID); got.State != billing.StateProvisioned {
		t.Errorf("expired component after a new expiry: %s", got.State)
	}

	// A paid one: no form, the reason in words; a POST is refused and nothing is sent.
	paidURL := "/students/2601/components/" + paid.ComponentID + "/edit"
	if res := c.Get(paidURL); res.Doc.Find(`[data-testid="component-edit-form"]`).Length() != 0 ||
		!strings.Contains(stext(res, `[data-testid="correction-refused"]`), "Sudah dibayar") {
		t.Errorf("paid form: %q", stext(res, `[data-testid="correction-refused"]`))
	}
	pf := editForm(paid)
	pf.Set("amount", "1")
	if res := c.Post(paidURL, pf); res.StatusCode != http.StatusConflict || !strings.Contains(stext(res, `[data-testid="correction-refused"]`), "riwayat pembayaran disimpan") {
		t.Errorf("paid POST: %d", res.StatusCode)
	}
	if got, _ := p.Billing.GetComponent(ctx, paid.ComponentID); got.Amount != 450_000 {
		t.Errorf("paid component changed: %d", got.Amount)
	}
	// Another student's component under this student's address is not found.
	if res := c.Get("/students/2699/components/" + unpaid.ComponentID + "/edit"); res.StatusCode != http.StatusNotFound {
		t.Errorf("foreign component: %d", res.StatusCode)
	}

	// A timeout: the outcome is unknown, and the page says to check.
	p.Sandbox.SetFaults(sandbox.Faults{TimeoutRate: 1})
	slow := editForm(unpaid)
	slow.Set("amount", "510000")
	slow.Set("notes", "naik per Januari")
	res = c.Post(editURL, slow)
	p.Sandbox.SetFaults(sandbox.Faults{})
	if res.StatusCode != http.StatusGatewayTimeout || !strings.Contains(stext(res, `[data-testid="form-error"]`), "periksa datanya dulu") || svalue(res, "#f-amount") != "510000" {
		t.Errorf("timeout: %d %q", res.StatusCode, stext(res, `[data-testid="form-error"]`))
	}
}

func TestComponentCancel(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: studentsNow, UpstreamTimeout: 500 * time.Millisecond})
	unpaid, paid, expired := correctionsSeed(t, p)
	c := p.SignedIn(t, "finance")
	ctx := context.Background()

	// A timeout: the cancel may have been applied; the page says so and asks to check.
	p.Sandbox.SetFaults(sandbox.Faults{TimeoutRate: 1})
	res := c.Post("/students/2601/components/cancel", url.Values{"id": {expired.ComponentID}, "reason": {"uji"}})
	p.Sandbox.SetFaults(sandbox.Faults{})
	if res.StatusCode != http.StatusGatewayTimeout || !strings.Contains(stext(res, `[data-testid="form-error"]`), "periksa datanya dulu") || svalue(res, "#f-reason") != "uji" {
		t.Fatalf("cancel timeout: %d %q", res.StatusCode, stext(res, `[data-testid="form-error"]`))
	}
	if entries, _, _ := p.DB.ListAudit(ctx, store.AuditFilter{Action: changes.ActionComponentsCancel}); len(entries) != 1 || entries[0].Outcome != changes.OutcomeUnknown {
		t.Fatalf("audit of the timed-out cancel: %+v", entries)
	}
	// It was applied (the sandbox applies, then hangs): the next confirmation says it is cancelled.
	p.SyncLedger(t)

	// The confirmation lists what will be cancelled and what is kept, and why.
	q := url.Values{"id": {unpaid.ComponentID, paid.ComponentID, expired.ComponentID}}
	res = c.Get("/students/2601/components/cancel?" + q.Encode())
	if res.StatusCode != http.StatusOK || res.Doc.Find(`[data-testid="cancel-row"]`).Length() != 2 ||
		!strings.Contains(stext(res, `[data-testid="cancel-kept"]`), "SPP November") || !strings.Contains(stext(res, `[data-testid="cancel-summary"]`), "Rp 750.000") {
		t.Fatalf("confirm: %d rows %d kept %q summary %q", res.StatusCode, res.Doc.Find(`[data-testid="cancel-row"]`).Length(),
			stext(res, `[data-testid="cancel-kept"]`), stext(res, `[data-testid="cancel-summary"]`))
	}
	// The reason is required; nothing is sent without it.
	form := url.Values{"id": {unpaid.ComponentID, paid.ComponentID, expired.ComponentID}, "reason": {"  "}}
	if res = c.Post("/students/2601/components/cancel", form); res.StatusCode != http.StatusUnprocessableEntity || stext(res, `[data-testid="error-reason"]`) == "" {
		t.Fatalf("no reason: %d", res.StatusCode)
	}
	if got, _ := p.Billing.GetComponent(ctx, unpaid.ComponentID); got.State == billing.StateDeleted {
		t.Fatal("cancelled without a reason")
	}
	// With a reason: both unpaid ones are cancelled, the paid one is not even sent.
	form.Set("reason", "salah nominal, diunggah ulang")
	res = c.Post("/students/2601/components/cancel", form)
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("cancel: %d %q", res.StatusCode, stext(res, `[data-testid="form-error"]`))
	}
	for _, b := range []billing.Bill{unpaid, expired} {
		if got, err := p.Billing.GetComponent(ctx, b.ComponentID); err != nil || got.State != billing.StateDeleted {
			t.Errorf("%s at the service: %s %v", b.Name, got.State, err)
		}
	}
	if got, _ := p.Billing.GetComponent(ctx, paid.ComponentID); got.State != billing.StatePaid {
		t.Errorf("paid component: %s", got.State)
	}
	// The service refused the pair (the expired one was cancelled by the timed-out call):
	// read back, it counts as done, and the other one is sent alone.
	entries, _, _ := p.DB.ListAudit(ctx, store.AuditFilter{Action: changes.ActionComponentsCancel, Outcome: changes.OutcomeOK})
	if len(entries) != 1 || entries[0].Args["reason"] != "salah nominal, diunggah ulang" || entries[0].Args["count"] != "1" || entries[0].Args["item"] != "SPP Desember" {
		t.Errorf("audit: %+v", entries)
	}
	page := c.Get("/students/2601")
	if n := page.Doc.Find(`[data-testid="bill-row"]`).Length(); n != 1 {
		t.Errorf("student page shows %d rows after the cancel, want the paid one", n)
	}
	if strings.Contains(page.Doc.Find(`.flash, [role="status"]`).Text(), "dibatalkan") == false {
		t.Logf("flash: %q", page.Doc.Find(`[data-testid^="flash"]`).Text())
	}
	// Only a paid one chosen: nothing to cancel, said.
	res = c.Get("/students/2601/components/cancel?id=" + paid.ComponentID)
	if res.Doc.Find(`[data-testid="component-cancel-form"]`).Length() != 0 || stext(res, `[data-testid="cancel-none"]`) == "" {
		t.Error("a paid component alone offers a cancel")
	}
}

func TestCorrectionsRoles(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: studentsNow})
	unpaid, _, _ := correctionsSeed(t, p)
	c := p.SignedIn(t, "principal")
	editURL := "/students/2601/components/" + unpaid.ComponentID + "/edit"
	if res := c.Get("/students/2601"); res.Doc.Find(`[data-testid="bill-edit"], [data-testid="bill-cancel"], [data-testid="bill-select"], [data-testid="cancel-selected"]`).Length() != 0 {
		t.Error("principal sees correction controls on the student page")
	}
	if res := c.Get("/bills"); res.Doc.Find(`[data-testid="bill-edit"], [data-testid="bill-cancel"]`).Length() != 0 {
		t.Error("principal sees correction controls on the bills list")
	}
	for _, path := range []string{editURL, "/students/2601/components/cancel?id=" + unpaid.ComponentID} {
		if res := c.Get(path); res.StatusCode != http.StatusForbidden {
			t.Errorf("principal GET %s: %d", path, res.StatusCode)
		}
	}
	f := editForm(unpaid)
	f.Set("amount", "1")
	posts := map[string]url.Values{editURL: f, "/students/2601/components/cancel": {"id": {unpaid.ComponentID}, "reason": {"x"}}}
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
	if got, _ := p.Billing.GetComponent(context.Background(), unpaid.ComponentID); got.Amount != 450_000 || got.State != billing.StateProvisioned {
		t.Errorf("principal changed the component: %+v", got)
	}
	// Finance sees the controls on the bills list, and none on a paid row.
	fin := p.SignedIn(t, "finance")
	res := fin.Get("/bills?state=all")
	if res.Doc.Find(`[data-testid="bill-edit"]`).Length() == 0 {
		t.Errorf("finance sees no edit on the bills list:\n%s", stext(res, `[data-testid="bills-results"]`))
	}
	href, _ := res.Doc.Find(`[data-testid="bill-row"][data-component="` + unpaid.ComponentID + `"] [data-testid="bill-edit"]`).Attr("href")
	if !strings.HasPrefix(href, editURL+"?back=%2Fbills") {
		t.Errorf("edit link from the list: %q", href)
	}
}

// A component paid at a bank after the page was read: the service refuses the cancel
// (all or none), the page says which was paid, and nothing is cancelled.
func TestComponentCancelPaidMeanwhile(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: studentsNow})
	unpaid, _, expired := correctionsSeed(t, p)
	c := p.SignedIn(t, "finance")
	ctx := context.Background()
	if _, err := p.Billing.Pay(ctx, billing.Payment{NIS: "2601", ComponentIDs: []string{unpaid.ComponentID}}); err != nil {
		t.Fatal(err)
	}
	res := c.Post("/students/2601/components/cancel", url.Values{"id": {unpaid.ComponentID, expired.ComponentID}, "reason": {"salah"}})
	if res.StatusCode != http.StatusConflict || !strings.Contains(stext(res, `[data-testid="form-error"]`), "SPP Desember sudah dibayar sementara itu") {
		t.Fatalf("paid meanwhile: %d %q", res.StatusCode, stext(res, `[data-testid="form-error"]`))
	}
	if got, _ := p.Billing.GetComponent(ctx, expired.ComponentID); got.State == billing.StateDeleted {
		t.Error("the other component was cancelled")
	}
}
