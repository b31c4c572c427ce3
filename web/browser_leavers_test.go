package web_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/portaltest"
)

// waitJobDone waits on a correction job's page (it polls itself) until the job ended.
func waitJobDone(b *portaltest.Browser) string {
	b.WaitVisible(`[data-testid="correction-job"]:is([data-state="done"], [data-state="partial"])`)
	st := portaltest.Get(b, chromedp.Evaluate[string](`document.querySelector('[data-testid="correction-job"]').dataset.state`))
	return st
}

// TestBrowserInstalmentsAndLeavers is the bursar's flow: an Uang Pangkal of Rp 6.000.000
// split into 3 instalments (a mistake first, then the preview), seen grouped under its
// name on the student page, then undone; a student who left on 30 November has their
// bills due after that day cancelled, their arrears kept, and is listed in the alumni
// arrears. Each page is looked at on a laptop and a phone, as finance and as admin.
func TestBrowserInstalmentsAndLeavers(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: studentsNow})
	pangkal, _ := instalmentsSeed(t, p)
	leaver := leaversSeed(t, p)
	ctx := context.Background()
	b := p.NewBrowser(t)
	b.SignIn("finance", portaltest.Password)

	// The split: from the student page's row, the form, a wrong date, the preview.
	b.Visit("/students/2601")
	b.Click(`[data-testid="bill-row"][data-component="` + pangkal.ComponentID + `"] [data-testid="bill-split"]`)
	b.WaitVisible(`[data-testid="instalments-form"]`)
	b.Do(chromedp.SetValue(chromedp.CSS(`#f-parts`), "3"))
	b.Type(`#f-first_due`, "31/02/2027")
	b.Type(`#f-reason`, "permintaan orang tua")
	b.Click(`[data-testid="instalments-preview-btn"]`)
	b.WaitVisible(`[data-testid="error-first_due"]`)
	if v := portaltest.Get(b, chromedp.Value(chromedp.CSS(`#f-reason`))); v != "permintaan orang tua" {
		t.Fatalf("typed reason lost: %q", v)
	}
	shots(b, "instalments-form-error")
	b.Type(`#f-first_due`, "10/01/2027")
	b.Click(`[data-testid="instalments-preview-btn"]`)
	b.WaitVisible(`[data-testid="instalments-preview"]`)
	if n := b.Count(`[data-testid="instalments-part"]`); n != 3 {
		t.Fatalf("preview lists %d parts", n)
	}
	if got := strings.Join(strings.Fields(b.Text(`[data-testid="instalments-total"]`)), " "); got != "Rp 6.000.000" {
		t.Errorf("preview total %q", got)
	}
	shots(b, "instalments-preview")
	b.Click(`[data-testid="instalments-confirm"]`)
	if st := waitJobDone(b); st != "done" {
		t.Fatalf("split job: %s", st)
	}
	shots(b, "instalments-job")
	b.Click(`[data-testid="correction-back"]`)
	b.WaitVisible(`[data-testid="instalment-group"]`)
	if got := b.Text(`[data-testid="instalment-group-name"]`); got != "Uang Pangkal" {
		t.Errorf("group %q", got)
	}
	names := portaltest.Get(b, chromedp.Evaluate[string](`[...document.querySelectorAll('tr.instalment-part [data-testid="bill-name"]')].map(e => e.textContent.trim()).join('|')`))
	if names != "Uang Pangkal, cicilan 1/3|Uang Pangkal, cicilan 2/3|Uang Pangkal, cicilan 3/3" {
		t.Fatalf("parts on the page: %q", names)
	}
	shots(b, "instalments-student-page")
	if got, _ := p.Billing.GetComponent(ctx, pangkal.ComponentID); got.State != billing.StateDeleted {
		t.Errorf("the original at the service: %s", got.State)
	}

	// The undo: the confirmation says what happens, then the original is back as it was.
	b.Click(`[data-testid="instalment-undo"]`)
	b.WaitVisible(`[data-testid="undo-form"]`)
	shots(b, "instalments-undo")
	b.Type(`#f-reason`, "dibayar lunas")
	b.Click(`[data-testid="undo-confirm"]`)
	if st := waitJobDone(b); st != "done" {
		t.Fatalf("undo job: %s", st)
	}
	b.Click(`[data-testid="correction-back"]`)
	b.WaitVisible(`[data-testid="bills-table"]`)
	if b.Count(`[data-testid="instalment-group"]`) != 0 || b.Count(`tr.instalment-part`) != 0 {
		t.Error("the parts are still on the page")
	}
	restored := false
	for _, n := range strings.Split(b.Text(`[data-testid="bills-table"] tbody`), "\n") {
		restored = restored || strings.HasPrefix(strings.TrimSpace(n), "Uang Pangkal") && !strings.Contains(n, "cicilan")
	}
	if !restored {
		t.Errorf("the original is not back on the page:\n%s", b.Text(`[data-testid="bills-table"] tbody`))
	}

	// The leaver: the status form (the day typed the school's way), the offer, the cancel.
	b.Visit("/students/007123")
	b.Click(`[data-testid="student-status-edit"]`)
	b.WaitVisible(`[data-testid="status-form"]`)
	b.Do(chromedp.SetValue(chromedp.CSS(`#f-status`), "left"))
	b.Type(`#f-on`, "30/11/2026")
	b.Click(`[data-testid="status-save"]`)
	b.WaitVisible(`[data-testid="error-note"]`)
	if got := b.Text(`#student-status-form`); !strings.Contains(got, "Dibaca sebagai 30 Nov 2026") {
		t.Errorf("the day as read is not shown: %q", got)
	}
	shots(b, "leavers-status-error")
	b.Type(`#f-note`, "pindah ke luar kota")
	b.Click(`[data-testid="status-save"]`)
	b.WaitVisible(`[data-testid="leave-form"]`)
	if n := b.Count(`[data-testid="leave-row"]`); n != 3 {
		t.Fatalf("%d bills offered for cancelling", n)
	}
	if n := b.Count(`[data-testid="leave-kept-row"]`); n != 2 {
		t.Errorf("%d arrears kept", n)
	}
	shots(b, "leavers-preview")
	b.Click(`[data-testid="leave-confirm"]`)
	if st := waitJobDone(b); st != "done" {
		t.Fatalf("leave job: %s", st)
	}
	b.Click(`[data-testid="correction-back"]`)
	b.WaitVisible(`[data-testid="student-standing"]`)
	if b.Count(`[data-testid="student-leave-offer"]`) != 0 {
		t.Error("the offer is still there after the cancel")
	}
	shots(b, "leavers-student-page")
	for _, c := range leaver {
		got, _ := p.Billing.GetComponent(ctx, c.ComponentID)
		after := c.Due.After(utcDay(2026, 11, 30))
		if after != (got.State == billing.StateDeleted) {
			t.Errorf("%s: %s", c.Name, got.State)
		}
	}
	b.Visit("/reports/alumni")
	b.WaitVisible(`[data-testid="alumni-row"][data-nis="007123"]`)
	if got := b.Text(`[data-testid="alumni-row"][data-nis="007123"] [data-testid="alumni-items"]`); !strings.Contains(got, "SPP Oktober") || strings.Contains(got, "Desember") {
		t.Errorf("alumni items: %q", got)
	}
	shots(b, "leavers-alumni")
	b.Visit("/students?status=former")
	shots(b, "leavers-students-list")
	b.Visit("/payments/new?nis=007123")
	b.WaitVisible(`[data-testid="payment-standing"]`)
	shots(b, "leavers-counter")

	// The same pages as an admin sees them.
	a := p.NewBrowser(t)
	a.SignIn("admin", portaltest.Password)
	for _, pg := range []struct{ path, name string }{
		{"/students/007123", "leavers-admin-student"}, {"/students/2601", "instalments-admin-student"},
		{"/reports/alumni", "leavers-admin-alumni"}, {"/students/2601/status", "leavers-admin-status"},
		{"/reports/outstanding", "leavers-admin-outstanding"},
	} {
		a.Visit(pg.path)
		a.WaitVisible(`main`)
		shots(a, pg.name)
	}
}
