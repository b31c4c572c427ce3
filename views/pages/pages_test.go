package pages_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/views/layout"
	"github.com/sekolah/portal/views/pages"
	"github.com/sekolah/portal/views/viewctx"
)

// render renders a component the way a handler does, for a signed-in finance officer
// at path, and parses the HTML for querying.
func render(t *testing.T, path string, c templ.Component) *goquery.Document {
	t.Helper()
	ctx := i18n.WithPrinter(context.Background(), i18n.NewPrinter(i18n.Indonesian, i18n.Jakarta()))
	ctx = viewctx.WithPerson(ctx, viewctx.Person{ID: "u1", Username: "siti", DisplayName: "Siti Aminah", Role: "finance"})
	ctx = viewctx.WithNav(ctx, []viewctx.NavItem{
		{Href: "/", Key: "nav.dashboard", TestID: "nav-dashboard"},
		{Href: "/students", Key: "nav.students", TestID: "nav-students"},
	})
	ctx = viewctx.WithPath(ctx, path)
	ctx = viewctx.WithCSRF(ctx, "tok")
	var buf bytes.Buffer
	if err := c.Render(ctx, &buf); err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func text(doc *goquery.Document, sel string) string {
	return strings.TrimSpace(doc.Find(sel).First().Text())
}

// The navigation shows the sections web/ says the person may open, the current one marked.
func TestNavigationMarksTheCurrentSection(t *testing.T) {
	t.Parallel()
	doc := render(t, "/students/2601/edit", layout.Page("x"))
	if n := doc.Find("nav.sidenav a").Length(); n != 2 {
		t.Fatalf("%d sections shown, want the 2 given", n)
	}
	if _, ok := doc.Find(`[data-testid="nav-students"]`).Attr("aria-current"); !ok {
		t.Error("students is not marked current on a student's page")
	}
	if _, ok := doc.Find(`[data-testid="nav-dashboard"]`).Attr("aria-current"); ok {
		t.Error("the dashboard is marked current away from /")
	}
	if got := text(doc, `[data-testid="user-role"]`); got != "Keuangan" {
		t.Errorf("role badge = %q", got)
	}
	if v, _ := doc.Find(`input[name="csrf_token"]`).Attr("value"); v != "tok" {
		t.Errorf("csrf field = %q", v)
	}
}

// The counter form: payable lines can be chosen (the chosen ones ticked), the others are
// disabled with the reason beside them.
func TestPaymentPanelLines(t *testing.T) {
	t.Parallel()
	day := time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC)
	v := pages.PaymentView{NIS: "2601", Student: "Budi", Found: true, Today: day, BillsURL: "/bills?nis=2601&state=all",
		PayableTotal: 475_000, Problems: []string{"Pembayaran tidak dicatat.", "SPP Oktober sudah kedaluwarsa."},
		Lines: []pages.PaymentLine{
			{ID: "late", Name: "SPP November", Due: day, DaysLate: 12, Amount: 450_000, Penalty: 25_000, DueNow: 475_000, Late: true, Payable: true, Selected: true},
			{ID: "gone", Name: "SPP Oktober", Due: day, Amount: 450_000, Payable: false, Reason: "Sudah kedaluwarsa"},
		}}
	doc := render(t, "/payments/new", pages.PaymentPanel(v))
	late := doc.Find(`[data-testid="payment-line"][data-component="late"]`)
	if _, checked := late.Find(`[data-testid="choose"]`).Attr("checked"); !checked || !late.HasClass("is-overdue") {
		t.Errorf("the chosen late line: checked %v, classes %q", checked, late.AttrOr("class", ""))
	}
	gone := doc.Find(`[data-testid="payment-line"][data-component="gone"]`)
	if _, disabled := gone.Find(`[data-testid="choose"]`).Attr("disabled"); !disabled || strings.TrimSpace(gone.Find(`[data-testid="not-payable"]`).Text()) != "Sudah kedaluwarsa" {
		t.Errorf("the expired line is not disabled with its reason: %s", gone.Text())
	}
	if gone.Find(`input[name="component"]`).Length() != 0 {
		t.Error("an unpayable line posts its id")
	}
	if got := text(doc, `[data-testid="payable-total"]`); got != "Rp\u00a0475.000" {
		t.Errorf("payable total = %q", got)
	}
	if n := doc.Find(`[data-testid="payment-refused"] li`).Length(); n != 2 {
		t.Errorf("%d problems listed, want 2", n)
	}
	if href, _ := doc.Find(`[data-testid="student-bills"]`).Attr("href"); href != v.BillsURL {
		t.Errorf("bills link = %q", href)
	}
}

// The statement marks overdue and paid rows and words each status; without rows it says so.
func TestStatementRows(t *testing.T) {
	t.Parallel()
	due := time.Date(2026, 10, 10, 0, 0, 0, 0, time.UTC)
	v := pages.StatementView{NIS: "2601", ReportShell: pages.ReportShell{URL: "/reports/statement?nis=2601", XLSXURL: "/x.xlsx", CSVURL: "/x.csv"},
		Report: &pages.StatementReport{NIS: "2601", Name: "Budi", Class: "Kelas 7A", StudentURL: "/students/2601", Owed: 475_000},
		Rows: []pages.StatementRow{
			{Due: due, Component: "SPP Oktober", Status: "paid", Paid: 450_000},
			{Due: due, Component: "SPP November", Status: "overdue", DueToday: 475_000, Running: 475_000},
			{Due: due, Component: "SPP Desember", Status: "provisioned"},
		}}
	doc := render(t, "/reports/statement", pages.StatementResults(v))
	rows := doc.Find(`[data-testid="statement-table"] tbody tr`)
	if rows.Length() != 3 || !rows.Eq(0).HasClass("is-paid") || !rows.Eq(1).HasClass("is-overdue") || rows.Eq(2).AttrOr("class", "") != "" {
		t.Fatalf("row classes: %d rows", rows.Length())
	}
	if got := strings.TrimSpace(rows.Eq(1).Find(".badge").Text()); got != "Terlambat" {
		t.Errorf("overdue badge = %q", got)
	}
	if href, _ := doc.Find(`[data-testid="export-xlsx"]`).Attr("href"); href != "/x.xlsx" {
		t.Errorf("export link = %q", href)
	}
	if got := text(doc, `[data-testid="statement-owed"]`); got != "Rp\u00a0475.000" {
		t.Errorf("owed = %q", got)
	}

	v.Report.Empty, v.Rows = true, nil
	if doc := render(t, "/reports/statement", pages.StatementResults(v)); doc.Find(`[data-testid="statement-table"]`).Length() != 0 {
		t.Error("an empty statement shows a table")
	}
	if doc := render(t, "/reports/statement", pages.StatementResults(pages.StatementView{NIS: "9", NotFound: true})); doc.Find(`[data-testid="statement-not-found"]`).Length() != 1 {
		t.Error("an unknown NIS is not said")
	}
}

// A student page offers changes only when the view model says the person may make them.
func TestStudentPageOffersChangesOnlyWhenAllowed(t *testing.T) {
	t.Parallel()
	v := pages.StudentView{Student: pages.StudentInfo{NIS: "26.01", Name: "Budi"}, PayURL: "/payments/new?nis=26.01"}
	doc := render(t, "/students/26.01", pages.StudentShow(v))
	if doc.Find(`[data-testid="student-edit"], [data-testid="student-pay"]`).Length() != 0 {
		t.Error("changes offered to a reader")
	}
	v.CanWrite = true
	doc = render(t, "/students/26.01", pages.StudentShow(v))
	if href, _ := doc.Find(`[data-testid="student-edit"]`).Attr("href"); href != "/students/26.01/edit" {
		t.Errorf("edit link = %q", href)
	}
	if href, _ := doc.Find(`[data-testid="student-pay"]`).Attr("href"); href != v.PayURL {
		t.Errorf("pay link = %q", href)
	}
}

// TestStudentPageActionsFold: a bursar sees the two actions of every day as buttons; the
// rarer ones (statement, letter, edit, delete) are in a "More" menu that is a <details>
// (it opens without JavaScript); no button is shown disabled: why a student cannot be
// deleted is said in words.
func TestStudentPageActionsFold(t *testing.T) {
	t.Parallel()
	v := pages.StudentView{Student: pages.StudentInfo{NIS: "26.01", Name: "Budi"}, PayURL: "/payments/new?nis=26.01",
		LetterURL: "/students/26.01/letter", CanWrite: true, HasPayments: true}
	doc := render(t, "/students/26.01", pages.StudentShow(v))
	actions := doc.Find(`[data-testid="student-actions"]`)
	if n := actions.Find(`.btn`).Not(`details .btn`).Length(); n != 2 {
		t.Errorf("%d buttons outside the menu, want 2 (pay, add)", n)
	}
	more := actions.Find(`details.more-menu[data-testid="student-more"]`)
	if more.Find(`summary`).Text() != "Lainnya" {
		t.Fatalf("no 'Lainnya' menu: %q", more.Find(`summary`).Text())
	}
	for _, id := range []string{"student-statement", "student-letter", "student-edit", "student-delete-blocked"} {
		if more.Find(`[data-testid="`+id+`"]`).Length() != 1 {
			t.Errorf("%s is not in the menu", id)
		}
	}
	if doc.Find(`[aria-disabled], [disabled]`).Length() != 0 {
		t.Error("a disabled control is shown")
	}
	if got := text(doc, `[data-testid="student-delete-blocked"]`); !strings.Contains(got, "sudah memiliki pembayaran") {
		t.Errorf("why it cannot be deleted: %q", got)
	}
	if got := text(doc, `[data-testid="student-statement"]`); got != "Rincian tagihan" {
		t.Errorf("the statement is called %q", got)
	}
	// Without payments, delete is a link in the menu.
	v.HasPayments = false
	doc = render(t, "/students/26.01", pages.StudentShow(v))
	if doc.Find(`[data-testid="student-more"] [data-testid="student-delete"]`).Length() != 1 {
		t.Error("delete is not in the menu")
	}
}
