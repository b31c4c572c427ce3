package web_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/sekolah/portal/internal/portaltest"
)

func TestBrowserRegistrationWizard(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: regNow})
	b := p.NewBrowser(t)

	// The admin defines the fee template.
	b.SignIn("admin", portaltest.Password)
	b.Visit("/")
	b.Click(`[data-testid="nav-settings"]`)
	b.Click(`[data-testid="fee-template-new"]`)
	b.Type(`#f-name`, "Pendaftaran SMP 2027")
	for _, f := range [][2]string{
		{"#f-line0_name", "Uang Pangkal"}, {"#f-line0_amount", "5.000.000"}, {"#f-line0_penalty", "100000"},
		{"#f-line0_due", "+14"}, {"#f-line0_expiry", "+60"},
		{"#f-line1_name", "Seragam"}, {"#f-line1_amount", "750000"}, {"#f-line1_due", "+14"}, {"#f-line1_expiry", "+60"},
	} {
		b.Type(f[0], f[1])
	}
	b.Do(chromedp.SetValue(chromedp.CSS(`#f-line1_account`), "BCA"))
	b.Click(`#f-line1_optional`)
	b.Screenshot("fee-template-form")
	b.Click(`[data-testid="fee-template-save"]`)
	b.WaitVisible(`[data-testid="fee-templates-table"]`)
	list, err := p.DB.ListFeeTemplates(t.Context())
	if err != nil || len(list) != 1 || len(list[0].Lines) != 2 || !list[0].Lines[1].Optional {
		t.Fatalf("templates = %+v, %v", list, err)
	}
	b.Click(`[data-testid="sign-out"]`)
	b.WaitVisible(`[data-testid="login-form"]`)

	// Finance registers a student: a mistake first, then the review, then the confirm.
	b.SignIn("finance", portaltest.Password)
	b.Visit("/")
	b.Click(`[data-testid="nav-registration"]`)
	b.Type(`#f-nis`, "2027 001")
	b.Type(`#f-name`, "Rina Wulandari")
	b.Type(`#f-description`, "Kelas 7A")
	b.Do(chromedp.SetValue(chromedp.CSS(`#f-template`), list[0].ID))
	b.Click(`[data-testid="wizard-next"]`)
	if msg := b.Text(`[data-testid="error-nis"]`); !strings.Contains(msg, "NIS") {
		t.Fatalf("NIS error = %q", msg)
	}
	if v := portaltest.Get(b, chromedp.Value(chromedp.CSS(`#f-name`))); v != "Rina Wulandari" {
		t.Fatalf("name lost: %q", v)
	}
	b.Type(`#f-nis`, "2027001")
	b.Click(`[data-testid="wizard-next"]`)
	b.WaitVisible(`#registration-wizard[data-step="2"]`)
	if total := b.Text(`[data-testid="review-total"]`); total != "Rp\u00a05.750.000" {
		t.Fatalf("review total = %q", total)
	}
	b.Click(`[data-testid="include"]`) // leave out the uniform: the total follows at once
	b.WaitText(`[data-testid="review-total"]`, "Rp\u00a05.000.000")
	b.Screenshot("registration-review")
	b.Click(`[data-testid="wizard-confirm"]`)

	b.Click(`[data-testid="registration-ids"] summary`) // the ids are behind the details
	billID := b.Text(`[data-testid="bill-id"]`)
	rec, err := p.DB.RegistrationByBillID(t.Context(), billID)
	if err != nil || rec.NIS != "2027001" || len(rec.Components) != 1 {
		t.Fatalf("summary shows bill %q: %+v %v", billID, rec, err)
	}
	if ids := b.Count(`[data-testid="component-id"]`); ids != 1 || !strings.Contains(b.Text(`[data-testid="flash"]`), "Rina Wulandari") {
		t.Fatalf("%d component ids on the summary", ids)
	}
	if loc := b.Location(); loc != "/registrations/"+billID {
		t.Fatalf("summary at %s", loc)
	}
	b.Screenshot("registration-summary")
}
