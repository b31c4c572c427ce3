package web_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/plans"
	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/store"
)

// TestBrowserPlanYear is a school year planned in the portal, as a bursar does it: a plan
// of SPP with grade 8's own price, a sibling's 50% discount and a 100% scholarship given
// first, the plan applied to grade 7 and class 8A (the preview, then its confirmation),
// a student who joined in the plan's fourth month billed from then on; the student page,
// the kartu SPP, the printed card and the discounts report then agree on every month.
//
// The roster dates a student's arrival with the database's own clock, so the plan's year
// is set around today's real month (joined), and the portal's day is today.
func TestBrowserPlanYear(t *testing.T) {
	t.Parallel()
	now := time.Now().UTC().Truncate(time.Hour)
	p := portaltest.Start(t, portaltest.Options{Now: now})
	ctx := context.Background()
	var list []billing.Student
	for ci, class := range []string{"Kelas 7A", "Kelas 8A"} {
		for i := range 3 {
			nis := fmt.Sprintf("0%d%03d", 7+ci, i)
			list = append(list, billing.Student{NIS: nis, Name: fmt.Sprintf("Siswa %s %d", strings.TrimPrefix(class, "Kelas "), i), Description: class})
		}
	}
	if _, err := p.Billing.CreateStudents(ctx, list); err != nil {
		t.Fatal(err)
	}
	p.SyncLedger(t)
	joined := plans.MonthOfDay(time.Now().In(p.Config.Location))
	from, to := joined.Add(-3), joined.Add(8)

	b := p.NewBrowser(t)
	b.SignIn("finance", portaltest.Password)

	// The plan, through its form.
	b.Visit("/plans")
	shots(b, "plans-empty")
	b.Click(`[data-testid="plan-new"]`)
	b.WaitVisible(`[data-testid="plan-form"]`)
	b.Type(`#f-name`, "SPP 2026/2027")
	b.Type(`#f-amount`, "350.000")
	b.Type(`#f-penalty_amount`, "25.000")
	b.Do(chromedp.SetValue(chromedp.CSS(`#f-from`), from.String()), chromedp.SetValue(chromedp.CSS(`#f-to`), to.String()))
	b.Type(`#f-due_day`, "10")
	b.Type(`#f-expiry_days`, "20")
	b.Type(`#f-rate_for-0`, "8")
	b.Type(`#f-rate_amount-0`, "375.000")
	shots(b, "plans-form")
	b.Click(`[data-testid="plan-save"]`)
	b.WaitVisible(`[data-testid="plan-name"]`)
	planPath := b.Location()
	planID := strings.TrimPrefix(planPath, "/plans/")
	if code := b.Text(`[data-testid="plan-code"]`); code != "SPP2627" {
		t.Fatalf("code %q", code)
	}

	// A sibling's 50% discount and a 100% scholarship, given before the plan is applied.
	for _, g := range []struct{ nis, value, reason string }{{"07000", "50", "sibling"}, {"07001", "100", "scholarship"}} {
		b.Visit("/students/" + g.nis + "/discounts")
		b.Do(chromedp.SetValue(chromedp.CSS(`#f-plan`), planID), chromedp.SetValue(chromedp.CSS(`#f-kind`), "percent"),
			chromedp.SetValue(chromedp.CSS(`#f-reason`), g.reason))
		b.Type(`#f-value`, g.value)
		b.Click(`[data-testid="discount-save"]`)
		b.WaitVisible(`[data-testid="discount-row"]`)
	}
	shots(b, "plans-discounts")

	// A student who joins in the plan's fourth month, through the portal.
	if _, err := p.App.Writer.CreateStudents(ctx, auth.Actor{Username: "finance", Role: auth.Finance},
		[]billing.Student{{NIS: "07003", Name: "Siswa Baru", Description: "Kelas 7A"}}, store.SourcePortal); err != nil {
		t.Fatal(err)
	}

	// Apply to grade 7 and class 8A: the preview, then the confirmation.
	b.Visit(planPath)
	shots(b, "plans-plan")
	b.Click(`input[name="grade"][value="7"]`)
	b.Click(`input[name="class"][value="Kelas 8A"]`)
	b.Click(`[data-testid="apply-preview"]`)
	b.WaitVisible(`[data-testid="plan-preview"]`)
	// 3 × 12 in 8A; in 7A 07000 12 halved, 07001 12 waived, 07002 12, 07003 9 (from joining).
	if s := b.Text(`[data-testid="preview-summary"]`); !strings.Contains(s, "7 siswa: 69 tagihan baru") {
		t.Fatalf("preview: %q", s)
	}
	if s := b.Text(`[data-testid="preview-line"][data-nis="07003"] [data-testid="preview-start"]`); !strings.Contains(s, i18n.MonthFull(i18n.Indonesian, joined.Month())) {
		t.Errorf("the new student's start: %q", s)
	}
	if n := b.Text(`[data-testid="preview-line"][data-nis="07003"] [data-testid="preview-create"]`); n != "9" {
		t.Errorf("the new student gets %s months, want 9", n)
	}
	if n := b.Text(`[data-testid="preview-line"][data-nis="07001"] [data-testid="preview-line-waived"]`); !strings.Contains(n, "12") {
		t.Errorf("the scholarship: %q", n)
	}
	if d := b.Text(`[data-testid="preview-line"][data-nis="07000"] [data-testid="preview-discount"]`); !strings.Contains(d, "50%") {
		t.Errorf("the sibling's discount: %q", d)
	}
	shots(b, "plans-preview")
	b.Click(`[data-testid="preview-confirm"]`)
	b.WaitVisible(`[data-testid="plan-job"][data-state="done"]`)
	if done := b.Text(`[data-testid="plan-job-done"]`); done != "69" {
		t.Fatalf("the job made %s", done)
	}
	shots(b, "plans-job")

	// planBill is a student's component of the plan for month m, at the service.
	planBill := func(nis string, m plans.Month) billing.Bill {
		for bl, err := range p.Billing.AllForStudent(ctx, nis, billing.Query{}) {
			if err != nil {
				t.Fatal(err)
			}
			if bl.Notes == "[plan SPP2627 "+m.String()+"]" {
				return bl
			}
		}
		t.Fatalf("%s has no component of %s", nis, m)
		return billing.Bill{}
	}

	// A parent pays this month's SPP of 08000 at the bank.
	paid := planBill("08000", joined)
	if _, err := p.Billing.Pay(ctx, billing.Payment{NIS: "08000", ComponentIDs: []string{paid.ComponentID}}); err != nil {
		t.Fatal(err)
	}
	p.SyncLedger(t)

	// The student page: twelve months at half the price.
	b.Visit("/students/07000")
	if n := b.Count(`[data-testid="bill-row"]`); n != 12 {
		t.Errorf("07000's page shows %d bills", n)
	}
	amounts := portaltest.Get(b, chromedp.Evaluate[[]string](`[...document.querySelectorAll('[data-testid="bill-amount"]')].map(e => e.textContent.trim())`))
	for _, a := range amounts {
		if a != i18n.Rupiah(175_000) {
			t.Errorf("07000's bill of %s, want %s", a, i18n.Rupiah(175_000))
		}
	}
	b.Visit("/students/07001")
	if n := b.Count(`[data-testid="bill-row"]`); n != 0 {
		t.Errorf("the scholarship student has %d bills", n)
	}

	// The kartu SPP of 7A agrees: 12 billed for 07000, 12 waived for 07001, the new
	// student's first three months not billed.
	b.Visit(planPath + "/kartu")
	shots(b, "plans-kartu-overview")
	b.Visit(planPath + "/kartu?class=Kelas+7A")
	states := func(nis string) []string {
		return portaltest.Get(b, chromedp.Evaluate[[]string](`[...document.querySelectorAll('[data-testid="kartu-row"][data-nis="`+nis+`"] [data-testid="kartu-cell"]')].map(e => e.dataset.state)`))
	}
	count := func(ss []string, want ...string) int {
		n := 0
		for _, s := range ss {
			for _, w := range want {
				if s == w {
					n++
				}
			}
		}
		return n
	}
	if s := states("07000"); len(s) != 12 || count(s, "unpaid", "late", "expired") != 12 {
		t.Errorf("07000's kartu: %v", s)
	}
	if s := states("07001"); count(s, "waived") != 12 {
		t.Errorf("07001's kartu: %v", s)
	}
	if s := states("07003"); count(s[:3], "not_billed") != 3 || count(s[3:], "not_billed") != 0 {
		t.Errorf("the new student's kartu: %v", s)
	}
	shots(b, "plans-kartu")
	b.Visit(planPath + "/kartu?class=Kelas+8A")
	if s := states("08000"); s[3] != "paid" {
		t.Errorf("08000's paid month: %v", s)
	}
	if txt := b.Text(`[data-testid="kartu-row"][data-nis="08000"] [data-state="paid"]`); txt == "" || txt == "–" {
		t.Errorf("a paid cell shows %q, not its day", txt)
	}

	// The printed card: one A4 page.
	b.Visit(planPath + "/kartu/07000")
	if n := b.Count(`[data-testid="card-line"]`); n != 12 {
		t.Errorf("the card has %d lines", n)
	}
	yes := true
	pdf, err := chromedp.Run(b.Ctx, func(ctx context.Context, tg *chromedp.Target) ([]byte, error) {
		res, err := cdp.Call(ctx, tg, page.PrintToPDF, page.PrintToPDFParams{PreferCSSPageSize: &yes})
		return res.Data, err
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(pdfPage.FindAll(pdf, -1)); n != 1 {
		t.Errorf("the card prints on %d pages", n)
	}
	if m := pdfMediaBox.FindSubmatch(pdf); m == nil || !near(string(m[1]), 595) || !near(string(m[2]), 842) {
		t.Errorf("the card prints on %q, want A4", m)
	}
	if dir, _ := portaltest.ScreenshotDir(); dir != "" {
		path := filepath.Join(dir, "plans-card.pdf")
		_ = os.WriteFile(path, pdf, 0o644)
		if out, err := exec.Command("pdftoppm", "-png", "-r", "80", "-singlefile", path, strings.TrimSuffix(path, ".pdf")).CombinedOutput(); err != nil {
			t.Logf("pdftoppm: %v %s", err, out)
		}
	}
	shots(b, "plans-card")

	// The discounts report: the sibling's twelve months and the scholarship's twelve.
	b.Visit("/reports/discounts")
	if n := b.Count(`[data-testid="discount-line"]`); n != 24 {
		t.Errorf("the discounts report has %d lines", n)
	}
	if off := b.Text(`[data-testid="discounts-off"]`); off != i18n.Rupiah(12*175_000+12*350_000) {
		t.Errorf("discounts in all: %s", off)
	}
	shots(b, "plans-discounts-report")

	// An instalment split of 08001's last month, from the student page: the kartu reads
	// the two parts as that month, then the split is undone and the month is whole again.
	last := planBill("08001", to)
	b.Visit("/students/08001")
	b.Click(`[data-testid="bill-row"][data-component="` + last.ComponentID + `"] [data-testid="bill-split"]`)
	b.WaitVisible(`[data-testid="instalments-form"]`)
	b.Do(chromedp.SetValue(chromedp.CSS(`#f-parts`), "2"))
	b.Type(`#f-first_due`, to.Day(10).Format("02/01/2006"))
	b.Type(`#f-reason`, "permintaan orang tua")
	b.Click(`[data-testid="instalments-preview-btn"]`)
	b.WaitVisible(`[data-testid="instalments-preview"]`)
	b.Click(`[data-testid="instalments-confirm"]`)
	if st := waitJobDone(b); st != "done" {
		t.Fatalf("split job: %s", st)
	}
	p.SyncLedger(t)
	lastTitle := `[...document.querySelectorAll('[data-testid="kartu-row"][data-nis="08001"] [data-testid="kartu-cell"]')].at(-1).title`
	b.Visit(planPath + "/kartu?class=Kelas+8A")
	if s := states("08001"); len(s) != 12 || s[11] != "unpaid" {
		t.Errorf("08001's kartu after the split: %v", s)
	}
	if title := portaltest.Get(b, chromedp.Evaluate[string](lastTitle)); !strings.Contains(title, "0 dari 2 cicilan lunas") || !strings.Contains(title, i18n.Rupiah(375_000)) {
		t.Errorf("the split month's cell: %q", title)
	}
	if parts := portaltest.Get(b, chromedp.Evaluate[string](`[...document.querySelectorAll('[data-testid="kartu-row"][data-nis="08001"] [data-testid="kartu-cell"]')].at(-1).querySelector('[data-testid="kartu-parts"]')?.textContent ?? ''`)); parts != "0/2" {
		t.Errorf("the split month's cell shows %q of its parts paid", parts)
	}
	shots(b, "plans-kartu-split")
	b.Visit("/students/08001")
	b.Click(`[data-testid="instalment-undo"]`)
	b.WaitVisible(`[data-testid="undo-form"]`)
	b.Type(`#f-reason`, "salah pecah")
	b.Click(`[data-testid="undo-confirm"]`)
	if st := waitJobDone(b); st != "done" {
		t.Fatalf("undo of the split: %s", st)
	}
	p.SyncLedger(t)
	b.Visit(planPath + "/kartu?class=Kelas+8A")
	if title := portaltest.Get(b, chromedp.Evaluate[string](lastTitle)); strings.Contains(title, "cicilan") || !strings.Contains(title, i18n.Rupiah(375_000)) {
		t.Errorf("the month made again: %q", title)
	}

	// 08002 leaves today: the months due after today are cancelled, the arrears kept; the
	// kartu shows the cancelled months not billed, and applying the plan again bills
	// nobody, the leaver named apart.
	today := time.Now().In(p.Config.Location)
	b.Visit("/students/08002")
	b.Click(`[data-testid="student-status-edit"]`)
	b.WaitVisible(`[data-testid="status-form"]`)
	b.Do(chromedp.SetValue(chromedp.CSS(`#f-status`), "left"))
	b.Type(`#f-on`, today.Format("02/01/2006"))
	b.Type(`#f-note`, "pindah ke luar kota")
	b.Click(`[data-testid="status-save"]`)
	b.WaitVisible(`[data-testid="leave-form"]`)
	later := 0
	for i := range 12 {
		if from.Add(i).Day(10).After(time.Date(today.Year(), today.Month(), today.Day(), 0, 0, 0, 0, time.UTC)) {
			later++
		}
	}
	if n := b.Count(`[data-testid="leave-row"]`); n != later {
		t.Fatalf("%d bills offered for cancelling, want %d", n, later)
	}
	if n := b.Count(`[data-testid="leave-kept-row"]`); n != 12-later {
		t.Errorf("%d arrears kept, want %d", n, 12-later)
	}
	b.Click(`[data-testid="leave-confirm"]`)
	if st := waitJobDone(b); st != "done" {
		t.Fatalf("leave job: %s", st)
	}
	p.SyncLedger(t)
	b.Visit(planPath + "/kartu?class=Kelas+8A")
	if s := states("08002"); len(s) != 12 || count(s[:12-later], "not_billed") != 0 || count(s[12-later:], "not_billed") != later {
		t.Errorf("the leaver's kartu: %v", s)
	}
	b.Visit(planPath)
	b.Click(`input[name="class"][value="Kelas 8A"]`)
	b.Click(`[data-testid="apply-preview"]`)
	b.WaitVisible(`[data-testid="plan-preview"]`)
	if s := b.Text(`[data-testid="preview-summary"]`); !strings.Contains(s, "0 tagihan baru") {
		t.Errorf("applied again after the leaver: %q", s)
	}
	if b.Count(`[data-testid="preview-line"][data-nis="08002"] [data-testid="preview-status"]`) != 1 || !strings.Contains(b.Text(`[data-testid="preview-inactive"]`), "1 siswa") {
		t.Errorf("the leaver is not named apart: %q", b.Text(`[data-testid="preview-line"][data-nis="08002"]`))
	}
	shots(b, "plans-preview-leaver")

	// The admin sees the same pages.
	a := p.NewBrowser(t)
	a.SignIn("admin", portaltest.Password)
	for _, path := range []string{"/plans", planPath, planPath + "/kartu?class=Kelas+7A", "/plans/candidates", "/reports/discounts",
		"/students/07000/discounts", planPath + "/edit"} {
		a.Visit(path)
		a.WaitVisible(`main`)
		shots(a, "plans-admin"+strings.NewReplacer("/", "-", "?", "-", "=", "-", "+", "-").Replace(strings.TrimPrefix(path, planPath)))
	}
}
