package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/sekolah/portal/internal/portaltest"
)

func TestBrowserStudentCreateAddComponents(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: studentsNow})
	b := p.NewBrowser(t)
	b.SignIn("finance", portaltest.Password)
	b.Visit("/")
	b.Click(`[data-testid="nav-students"]`)
	b.Click(`[data-testid="student-new"]`)

	// A mistake first: the form comes back in place, keeping what was typed.
	b.Type(`#f-nis`, "26 01")
	b.Type(`#f-name`, "Budi Santoso")
	b.Type(`#f-description`, "Kelas 7A")
	b.Type(`#f-phone`, "0812-3456-7890")
	b.Click(`[data-testid="student-save"]`)
	if msg := b.Text(`[data-testid="error-nis"]`); !strings.Contains(msg, "NIS") {
		t.Fatalf("NIS error = %q", msg)
	}
	if v := portaltest.Get(b, chromedp.Value(chromedp.CSS(`#f-name`))); v != "Budi Santoso" {
		t.Fatalf("name lost: %q", v)
	}
	b.Type(`#f-nis`, "2601")
	b.Click(`[data-testid="student-save"]`)
	if name := b.Text(`[data-testid="student-name"]`); !strings.Contains(name, "Budi Santoso") {
		t.Fatalf("student page heading = %q", name)
	}
	if msg := b.Text(`[data-testid="flash"]`); !strings.Contains(msg, "sudah terdaftar") {
		t.Errorf("flash = %q", msg)
	}

	b.Click(`[data-testid="student-add-components"]`)
	b.WaitVisible(`[data-testid="component-row-2"]`)
	b.Click(`[data-testid="components-add-row"]`) // HTMX: one more row, nothing typed is lost
	b.WaitVisible(`[data-testid="component-row-3"]`)
	b.Type(`#f-name-0`, "SPP Desember")
	b.Type(`#f-amount-0`, "Rp 450.000")
	b.Type(`#f-penalty-0`, "25.000")
	b.Do(chromedp.SetValue(chromedp.CSS(`#f-due-0`), "2026-12-10"), chromedp.SetValue(chromedp.CSS(`#f-expiry-0`), "2027-01-31"))
	b.Type(`#f-name-2`, "Seragam")
	b.Type(`#f-amount-2`, "1.250.000")
	b.Do(chromedp.SetValue(chromedp.CSS(`#f-account_code-2`), "BCA"),
		chromedp.SetValue(chromedp.CSS(`#f-due-2`), "2026-11-10"), chromedp.SetValue(chromedp.CSS(`#f-expiry-2`), "2026-12-31"))
	b.Click(`[data-testid="components-save"]`)

	b.WaitVisible(`[data-testid="bills-table"]`)
	if n := b.Count(`[data-testid="bill-row"]`); n != 2 {
		t.Fatalf("student page shows %d components", n)
	}
	table := b.Text(`[data-testid="bills-table"]`)
	for _, want := range []string{"Seragam", "Rp\u00a01.250.000", "terlambat 12 hari", "SPP Desember", "Rp\u00a0450.000", "dalam 18 hari"} {
		if !strings.Contains(table, want) {
			t.Errorf("components table lacks %q:\n%s", want, table)
		}
	}
	if got := b.Text(`[data-testid="sum-outstanding"]`); !strings.Contains(got, "Rp\u00a01.700.000") {
		t.Errorf("outstanding = %q", got)
	}
	b.Screenshot("student-page")

	// The roster finds the student as one types, and keeps the search in the address.
	b.Click(`[data-testid="nav-students"]`)
	b.Type(`[data-testid="students-search"]`, "budi")
	b.WaitVisible(`[data-testid="student-2601"]`)
	for i := 0; !strings.Contains(b.Location(), "q=budi"); i++ {
		if i == 50 {
			t.Fatalf("address after the search = %q", b.Location())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := b.Text(`[data-testid="student-2601"] [data-testid="student-outstanding"]`); got != "Rp\u00a01.700.000" {
		t.Errorf("roster outstanding = %q", got)
	}
	b.Screenshot("students")
}
