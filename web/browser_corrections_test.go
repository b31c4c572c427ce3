package web_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/portaltest"
)

// shots saves the page at both sizes people use (a laptop and a phone), then goes back to
// the laptop's size.
func shots(b *portaltest.Browser, name string) {
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
	b.Login("finance", portaltest.Password)
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
	b.Login("finance", portaltest.Password)
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
