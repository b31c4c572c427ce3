package web_test

import (
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/store"
)

// TestBrowserArrearsReport: a finance officer switches the arrears report to every
// unpaid bill without JavaScript's help (the switch is a link), the table fits a laptop
// screen, and the row's letter opens the reminder letter.
func TestBrowserArrearsReport(t *testing.T) {
	t.Parallel()
	p, _ := startCounter(t)
	// Siti's parents have a mobile number, so her page offers WhatsApp.
	siti := store.Student{NIS: "2024001", Name: "Siti Aminah", Description: "Kelas 7A", Phone: "0812-0000-0001", Source: store.SourceSync}
	if err := p.DB.UpsertStudents(t.Context(), []store.Student{siti}); err != nil {
		t.Fatal(err)
	}
	b := p.NewBrowser(t)
	b.Do(chromedp.EmulateViewport(1366, 768))
	b.SignIn("finance", portaltest.Password)
	b.Visit("/reports/outstanding")
	b.WaitVisible(`[data-testid="outstanding-table"]`)
	shots(b, "arrears-overdue")
	b.Click(`[data-testid="switch-link"]`)
	b.WaitVisible(`[data-testid="row-not-due"]`)
	if n := b.Count(`[data-testid="outstanding-row"]`); n != 3 {
		t.Errorf("all unpaid: %d rows", n)
	}
	fits := portaltest.Get(b, chromedp.Evaluate[bool](`(() => { const w = document.querySelector('[data-testid="outstanding-table"]').closest('.table-wrap'); return w.scrollWidth <= w.clientWidth; })()`))
	if !fits {
		t.Error("the arrears table is wider than its container at 1366 px")
	}
	shots(b, "arrears-all")
	b.Click(`[data-testid="outstanding-row"][data-nis="2024001"] [data-testid="row-reminder"]`)
	b.WaitVisible(`[data-testid="reminder"]`)
	if got := b.Text(`[data-testid="reminder-total"]`); got == "" {
		t.Error("reminder without a total")
	}
	shots(b, "arrears-reminder")
	b.Visit("/students/2024001")
	b.WaitVisible(`[data-testid="student-whatsapp"]`)
	shots(b, "arrears-student")
}
