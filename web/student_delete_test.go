package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/portaltest"
)

// A student with payments cannot be deleted: the student page and the confirmation say so
// before anyone clicks, and offer no delete button.
func TestStudentWithPaymentsSaysSoBeforeTheClick(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: studentsNow})
	bills := seedStudent(t, p, billing.Student{NIS: "2601", Name: "Budi Santoso"},
		spp("SPP November", 450_000, 25_000, utcDay(2026, 11, 30), utcDay(2026, 12, 31)))
	if _, err := p.Billing.Pay(t.Context(), billing.Payment{NIS: "2601", RefNumber: "LOKET-1", ComponentIDs: []string{bills[0].ComponentID}}); err != nil {
		t.Fatal(err)
	}
	seedStudent(t, p, billing.Student{NIS: "2602", Name: "Siti Aminah"},
		spp("SPP November", 450_000, 25_000, utcDay(2026, 11, 30), utcDay(2026, 12, 31)))
	c := p.SignedIn(t, "finance")

	page := c.Get("/students/2601")
	if page.Doc.Find(`[data-testid="student-delete"]`).Length() != 0 || page.Doc.Find(`[data-testid="student-delete-blocked"]`).Length() != 1 {
		t.Fatal("the student page offers to delete a student with payments")
	}
	// Said in words, in the "More" menu, not as a disabled button with a hover title.
	blocked := page.Doc.Find(`[data-testid="student-more"] [data-testid="student-delete-blocked"]`)
	if !strings.Contains(blocked.Text(), "sudah memiliki pembayaran") || page.Doc.Find(`[aria-disabled="true"]`).Length() != 0 {
		t.Error("the student page does not say in words why it cannot be deleted")
	}
	confirm := c.Get("/students/2601/delete")
	if confirm.StatusCode != http.StatusOK || confirm.Doc.Find(`[data-testid="student-delete-confirm"]`).Length() != 0 ||
		!strings.Contains(stext(confirm, `[data-testid="delete-has-payments"]`), "sudah memiliki pembayaran") {
		t.Fatalf("confirmation page: %d %q", confirm.StatusCode, stext(confirm, `[data-testid="delete-has-payments"]`))
	}
	if href := confirm.Doc.Find(`[data-testid="student-edit-instead"]`).AttrOr("href", ""); href != "/students/2601/edit" {
		t.Errorf("edit instead links to %q", href)
	}

	// Without payments: the button, on both pages.
	if c.Get("/students/2602").Doc.Find(`[data-testid="student-delete"]`).Length() != 1 ||
		c.Get("/students/2602/delete").Doc.Find(`[data-testid="student-delete-confirm"]`).Length() != 1 {
		t.Fatal("a student without payments cannot be deleted")
	}
	// A reader sees neither.
	if p.SignedIn(t, "principal").Get("/students/2601").Doc.Find(`[data-testid="student-delete"], [data-testid="student-delete-blocked"]`).Length() != 0 {
		t.Error("a principal sees delete controls")
	}
}

// A student the service no longer has (deleted meanwhile, elsewhere) goes the way a delete
// the portal makes goes: out of the roster and, with their unpaid bills, out of every
// figure at once. The dashboard and the bills list do not wait for the nightly reconcile.
func TestDeletingAStudentTheServiceNoLongerHas(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: studentsNow})
	seedStudent(t, p, billing.Student{NIS: "2601", Name: "Budi Santoso"},
		spp("SPP Desember", 450_000, 25_000, utcDay(2026, 12, 10), utcDay(2026, 12, 31)))
	seedStudent(t, p, billing.Student{NIS: "2602", Name: "Siti Aminah"},
		spp("SPP Desember", 300_000, 25_000, utcDay(2026, 12, 10), utcDay(2026, 12, 31)))
	c := p.SignedIn(t, "finance")
	outstanding := func() string { return stext(c.Get("/"), `[data-testid="card-outstanding"] [data-testid="value"]`) }
	if got := outstanding(); got != "Rp 750.000" {
		t.Fatalf("unpaid before: %q", got)
	}

	if err := p.Billing.DeleteStudent(t.Context(), "2602"); err != nil { // at the service, not through the portal
		t.Fatal(err)
	}
	if res := c.Post("/students/2602/delete", url.Values{"confirm": {"yes"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete: %d", res.StatusCode)
	}
	if flash := stext(c.Get("/students"), `[role="status"], .flash`); !strings.Contains(flash, "sudah tidak ada di layanan pembayaran") {
		t.Errorf("flash %q", flash)
	}
	if got := outstanding(); got != "Rp 450.000" {
		t.Errorf("unpaid after: %q, want only the student left", got)
	}
	if n := c.Get("/bills?state=all&nis=2602").Doc.Find(`[data-testid="bill-row"]`).Length(); n != 0 {
		t.Errorf("the bills list still shows %d of the deleted student's bills", n)
	}
	if res := c.Get("/students/2602"); res.StatusCode != http.StatusNotFound {
		t.Errorf("the deleted student's page: %d", res.StatusCode)
	}
}
