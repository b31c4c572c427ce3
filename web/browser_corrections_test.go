package web_test

import (
	"context"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/changes"
	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/uploads"
	"github.com/sekolah/portal/internal/uploads/sheettest"
)

// shots saves the page at both sizes people use (a laptop and a phone), then goes back to
// the laptop's size.
func shots(b *portaltest.Browser, name string) {
	if !portaltest.SavesScreenshots() {
		return
	}
	for _, s := range []struct {
		w, h int64
		tag  string
	}{{390, 844, "390"}, {1366, 768, "1366"}} {
		b.Do(chromedp.EmulateViewport(s.w, s.h))
		b.Screenshot(name + "-" + s.tag)
	}
}

func TestBrowserComponentEditAndCancel(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: studentsNow})
	unpaid, paid, expired := correctionsSeed(t, p)
	ctx := context.Background()
	b := p.NewBrowser(t)
	b.SignIn("finance", portaltest.Password)
	b.Visit("/students/2601")
	shots(b, "corrections-student-page")
	if txt := b.Text(`[data-testid="bill-row"][data-component="` + paid.ComponentID + `"] [data-testid="bill-actions"]`); !strings.Contains(txt, "Sudah dibayar") {
		t.Errorf("paid row actions: %q", txt)
	}

	// Edit: a mistake first (HTMX swaps the form in place, keeping what was typed), then
	// the right amount.
	b.Click(`[data-testid="bill-row"][data-component="` + unpaid.ComponentID + `"] [data-testid="bill-edit"]`)
	b.WaitVisible(`[data-testid="component-edit-form"]`)
	b.Type(`#f-amount`, "lima ratus")
	b.Click(`[data-testid="component-edit-save"]`)
	b.WaitVisible(`[data-testid="error-amount"]`)
	if v := portaltest.Get(b, chromedp.Value(chromedp.CSS(`#f-amount`))); v != "lima ratus" {
		t.Fatalf("typed amount lost: %q", v)
	}
	shots(b, "corrections-edit-error")
	b.Type(`#f-amount`, "500.000")
	b.Click(`[data-testid="component-edit-save"]`)
	b.WaitVisible(`[data-testid="flash"]`)
	if msg := b.Text(`[data-testid="flash"]`); !strings.Contains(msg, "diubah") {
		t.Errorf("flash = %q", msg)
	}
	if got, _ := p.Billing.GetComponent(ctx, unpaid.ComponentID); got.Amount != 500_000 {
		t.Fatalf("amount at the service: %d", got.Amount)
	}

	// The expired one's form says a new expiry makes it payable again.
	b.Click(`[data-testid="bill-row"][data-component="` + expired.ComponentID + `"] [data-testid="bill-edit"]`)
	b.WaitVisible(`[data-testid="edit-expired-note"]`)
	shots(b, "corrections-edit-expired")
	b.Visit("/students/2601")

	// Cancel two ticked components: the confirmation, the reason required, then done.
	b.Click(`[data-testid="bill-row"][data-component="` + unpaid.ComponentID + `"] [data-testid="bill-select"]`)
	b.Click(`[data-testid="bill-row"][data-component="` + expired.ComponentID + `"] [data-testid="bill-select"]`)
	b.Click(`[data-testid="cancel-selected"]`)
	b.WaitVisible(`[data-testid="component-cancel-form"]`)
	if n := b.Count(`[data-testid="cancel-row"]`); n != 2 {
		t.Fatalf("confirmation lists %d components", n)
	}
	b.Click(`[data-testid="component-cancel-confirm"]`)
	b.WaitVisible(`[data-testid="error-reason"]`)
	shots(b, "corrections-cancel-confirm")
	b.Type(`#f-reason`, "salah nominal")
	b.Click(`[data-testid="component-cancel-confirm"]`)
	b.WaitVisible(`[data-testid="flash"]`)
	if msg := b.Text(`[data-testid="flash"]`); !strings.Contains(msg, "dibatalkan") {
		t.Errorf("flash = %q", msg)
	}
	for _, c := range []billing.Bill{unpaid, expired} {
		if got, _ := p.Billing.GetComponent(ctx, c.ComponentID); got.State != billing.StateDeleted {
			t.Errorf("%s: %s", c.Name, got.State)
		}
	}
	if n := b.Count(`[data-testid="bill-row"]`); n != 1 {
		t.Errorf("student page shows %d rows after the cancel", n)
	}
	b.Visit("/bills?state=all")
	shots(b, "corrections-bills-list")
}

func TestBrowserBulkCorrection(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: studentsNow})
	all, _ := bulkSeed(t, p)
	ctx := context.Background()
	b := p.NewBrowser(t)
	b.SignIn("finance", portaltest.Password)
	b.Visit("/bills?state=all&account=SPP&notes=spp-des")
	shots(b, "corrections-bills-bulk-link")
	b.Click(`[data-testid="bulk-correct"]`)
	b.WaitVisible(`[data-testid="bulk-form"]`)
	if got := b.Text(`[data-testid="bulk-selection"]`); !strings.Contains(got, "5 tagihan") {
		t.Errorf("selection = %q", got)
	}
	b.Click(`[data-testid="bulk-action-amount"]`)
	b.Type(`#f-amount`, "475.000")
	b.Click(`[data-testid="bulk-preview"]`)
	b.WaitVisible(`[data-testid="bulk-summary"]`)
	if got := b.Text(`[data-testid="bulk-summary"]`); got != "4 tagihan, total Rp\u00a01.800.000 → Rp\u00a01.900.000" {
		t.Errorf("summary = %q", got)
	}
	shots(b, "corrections-bulk-preview")
	b.Click(`[data-testid="bulk-confirm"]`)
	b.WaitVisible(`[data-testid="correction-job"][data-state="done"]`)
	if got := b.Text(`[data-testid="correction-done"]`); got != "4" {
		t.Errorf("done = %q", got)
	}
	shots(b, "corrections-job-done")
	for _, c := range all[:4] {
		if got, _ := p.Billing.GetComponent(ctx, c.ComponentID); got.Amount != 475_000 {
			t.Errorf("%s: %d", c.NIS, got.Amount)
		}
	}
}

// TestBrowserUndoUpload: an upload of 40 components, one of them paid since; the undo on
// the upload's page cancels the 39 unpaid ones as a correction job, keeps the paid one and
// says so, and cannot be run twice.
func TestBrowserUndoUpload(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: uploadNow, Uploads: func(c *uploads.Config) { c.ChunkSize = 15 }})
	ctx := context.Background()
	sh, err := sheettest.Components(filepath.Join(t.TempDir(), "tagihan-salah.xlsx"), sheettest.Options{Rows: 40, Students: 10})
	if err != nil {
		t.Fatal(err)
	}
	enrol(t, p, sh, true)
	b := p.NewBrowser(t)
	b.SignIn("finance", portaltest.Password)
	b.Visit("/uploads")
	b.SetUploadFiles(`#f-file`, sh.Path)
	b.Click(`[data-testid="upload-submit"]`)
	b.WaitVisible(`[data-testid="upload-counts"]`)
	b.Click(`[data-testid="upload-commit"]`)
	b.Click(`[data-testid="confirm-yes"]`)
	b.Do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="upload-status"][data-state="done"]`)))
	uploadPath := b.Location()
	uploadID := strings.TrimPrefix(uploadPath, "/uploads/")

	// The upload knows what it created; one of them is paid at a bank since.
	created, err := p.DB.UploadCreated(ctx, uploadID)
	if err != nil || len(created) != 40 {
		t.Fatalf("the upload remembers %d components (%v), want 40", len(created), err)
	}
	var paid billing.Bill
	for _, id := range created {
		b, err := p.Billing.GetComponent(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if b.Active.IsZero() || !b.Active.After(uploadNow) {
			paid = b
			break
		}
	}
	if _, err := p.Billing.Pay(ctx, billing.Payment{NIS: paid.NIS, ComponentIDs: []string{paid.ComponentID}}); err != nil {
		t.Fatal(err)
	}
	p.SyncLedger(t)

	b.Visit(uploadPath)
	if got := b.Text(`[data-testid="undo-plan"]`); !strings.Contains(got, "39 tagihan") {
		t.Errorf("undo plan = %q", got)
	}
	if got := b.Text(`[data-testid="undo-paid"]`); !strings.Contains(got, paid.Name) || !strings.Contains(got, paid.NIS) {
		t.Errorf("paid kept = %q", got)
	}
	shots(b, "corrections-undo-offered")
	b.Click(`[data-testid="undo-confirm"]`)
	b.WaitVisible(`[data-testid="flash"]`)
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		b.Visit(uploadPath)
		if strings.Contains(b.Text(`[data-testid="upload-undo"]`), "sudah dibatalkan") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("undo not finished: %q", b.Text(`[data-testid="upload-undo"]`))
		}
	}
	if got := b.Text(`[data-testid="undo-result"]`); !strings.Contains(got, "39 tagihan dibatalkan") || !strings.Contains(got, "1 tagihan disimpan karena sudah dibayar") {
		t.Errorf("undo result = %q", got)
	}
	if got := b.Text(`[data-testid="undo-kept"]`); !strings.Contains(got, paid.Name) {
		t.Errorf("kept = %q", got)
	}
	if b.Count(`[data-testid="undo-form"]`) != 0 {
		t.Error("the undo is offered again")
	}
	shots(b, "corrections-undo-done")
	for _, id := range created {
		got, err := p.Billing.GetComponent(ctx, id)
		want := billing.StateDeleted
		if id == paid.ComponentID {
			want = billing.StatePaid
		}
		if err != nil || got.State != want {
			t.Errorf("%s: %s %v", id, got.State, err)
		}
	}
	// Once only: a second POST starts nothing.
	c := p.SignedIn(t, "finance")
	if res := c.Post(uploadPath+"/undo", url.Values{"reason": {"lagi"}}); res.StatusCode != http.StatusSeeOther {
		t.Errorf("second undo: %d", res.StatusCode)
	}
	if entries, _, _ := p.DB.ListAudit(ctx, store.AuditFilter{Action: changes.ActionComponentsCancel}); len(entries) != 1 || entries[0].Args["count"] != "39" {
		t.Errorf("cancel audit entries: %+v, want one of 39 (one chunk)", entries)
	}
	if res := p.SignedIn(t, "principal").Post(uploadPath+"/undo", url.Values{"reason": {"x"}}); res.StatusCode != http.StatusForbidden {
		t.Errorf("principal undo: %d", res.StatusCode)
	}
}
