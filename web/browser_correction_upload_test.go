package web_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/xuri/excelize/v2"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/uploads/sheettest"
)

// TestBrowserCorrectionsRoundTrip is the bursar's fix of a wrong amount and a wrong due
// date: the outstanding bills of one class exported from the bills list, edited in Excel
// (excelize here), uploaded back, the preview showing each changed cell old → new, sent,
// and the bills list showing the new values.
func TestBrowserCorrectionsRoundTrip(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: uploadNow})
	sh, err := sheettest.Students(filepath.Join(t.TempDir(), "siswa.xlsx"), sheettest.Options{Rows: 4})
	if err != nil {
		t.Fatal(err)
	}
	enrol(t, p, sh, true)
	due := time.Date(2026, 7, 10, 0, 0, 0, 0, time.UTC)
	var in []billing.ComponentInput
	for _, n := range sh.NIS {
		in = append(in, billing.ComponentInput{NIS: n, AccountCode: "SPP", Name: "SPP Juli 2026", Due: due, Expiry: due.AddDate(0, 1, 0), Amount: 350_000})
	}
	created, err := p.App.Writer.CreateComponents(context.Background(), auth.SystemActor, in, "seed")
	if err != nil {
		t.Fatal(err)
	}

	b := p.NewBrowser(t)
	b.SignIn("finance", portaltest.Password)
	b.Visit("/bills?state=provisioned")
	b.WaitVisible(`[data-testid="bills-export-template"]`)
	shots(b, "corrections-bills")
	data := download(t, b, `[data-testid="bills-export-template"]`)

	f, err := excelize.OpenReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	sheet := f.GetSheetName(0)
	rows, _ := f.GetRows(sheet)
	if len(rows) != 5 || rows[0][9] != "ID Tagihan" {
		t.Fatalf("export: %q", rows)
	}
	// The first student's amount was wrong; the second's due date too.
	var fixedAmount, fixedDue string
	for r := 2; r <= 5; r++ {
		id, _ := f.GetCellValue(sheet, "J"+strconv.Itoa(r))
		nis, _ := f.GetCellValue(sheet, "A"+strconv.Itoa(r))
		switch nis {
		case sh.NIS[0]:
			fixedAmount = id
			must(t, f.SetCellValue(sheet, "D"+strconv.Itoa(r), 375_000))
		case sh.NIS[1]:
			fixedDue = id
			must(t, f.SetCellValue(sheet, "F"+strconv.Itoa(r), due.AddDate(0, 0, 5)))
		}
	}
	if fixedAmount == "" || fixedDue == "" {
		t.Fatalf("export lacks the students' bills: %q", rows)
	}
	path := filepath.Join(t.TempDir(), "koreksi-tagihan.xlsx")
	must(t, f.SaveAs(path))

	b.Click(`[data-testid="nav-uploads"]`)
	b.WaitVisible(`[data-testid="upload-form"]`)
	b.SetUploadFiles(`#f-file`, path)
	b.Click(`[data-testid="upload-submit"]`)
	b.WaitVisible(`[data-testid="upload-changes"]`)
	if got := b.Text(`[data-testid="count-changes"]`); got != "2" {
		t.Fatalf("corrections = %q", got)
	}
	if got := b.Text(`[data-testid="count-new"]`); got != "0" {
		t.Fatalf("new rows = %q", got)
	}
	amountRow := `[data-testid="change-row"][data-id="` + fixedAmount + `"]`
	if old, nw := b.Text(amountRow+` [data-testid="change-old"]`), b.Text(amountRow+` [data-testid="change-new"]`); old != i18n.Rupiah(350_000) || nw != i18n.Rupiah(375_000) {
		t.Fatalf("amount change %q → %q", old, nw)
	}
	dueRow := `[data-testid="change-row"][data-id="` + fixedDue + `"]`
	if field, nw := b.Text(dueRow+` [data-testid="change-field"]`), b.Text(dueRow+` [data-testid="change-new"]`); field != "Jatuh tempo" || !strings.HasPrefix(nw, "15 ") {
		t.Fatalf("due change %q → %q", field, nw)
	}
	shots(b, "corrections-preview")

	b.Click(`[data-testid="upload-commit"]`)
	b.Click(`[data-testid="confirm-yes"]`)
	b.Do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="upload-status"][data-state="done"]`)))
	shots(b, "corrections-done")

	b.Visit("/bills?state=provisioned&nis=" + sh.NIS[0])
	b.WaitVisible(`[data-testid="bill-row"]`)
	if got := b.Text(`[data-testid="bill-row"][data-component="` + fixedAmount + `"]`); !strings.Contains(got, i18n.Rupiah(375_000)) {
		t.Fatalf("the bills list shows %q, want the new amount", got)
	}
	b.Visit("/bills?state=provisioned&nis=" + sh.NIS[1])
	b.WaitVisible(`[data-testid="bill-row"]`)
	if got := b.Text(`[data-testid="bill-row"][data-component="` + fixedDue + `"]`); !strings.Contains(got, "15 Jul 2026") {
		t.Fatalf("the bills list shows %q, want the new due date", got)
	}
	// At the service: exactly the two fields changed.
	for _, c := range created {
		got, err := p.Billing.GetComponent(context.Background(), c.ComponentID)
		if err != nil {
			t.Fatal(err)
		}
		wantAmount, wantDue := int64(350_000), due
		switch c.ComponentID {
		case fixedAmount:
			wantAmount = 375_000
		case fixedDue:
			wantDue = due.AddDate(0, 0, 5)
		}
		if got.Amount != wantAmount || !billing.DayIn(got.Due, time.UTC).Equal(wantDue) {
			t.Errorf("component %s: amount %d due %s", c.ComponentID, got.Amount, got.Due)
		}
	}
}

// shot takes the screenshot at the desktop size and the phone size, then goes back to the
// desktop.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestBrowserNaikKelas is the start of the school year: the whole school's students sheet
// with everyone one class up and one newcomer; the preview lists each student whose class
// changes (old → new) and counts the rest; sent, the students list shows the new classes.
func TestBrowserNaikKelas(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: uploadNow})
	sh, err := sheettest.Students(filepath.Join(t.TempDir(), "siswa.xlsx"), sheettest.Options{Rows: 6})
	if err != nil {
		t.Fatal(err)
	}
	var list []billing.Student
	for i, n := range sh.NIS {
		list = append(list, billing.Student{NIS: n, Name: sh.Names[i], Description: "Kelas 7A"})
	}
	if _, err := p.App.Writer.CreateStudents(context.Background(), auth.SystemActor, list, "portal"); err != nil {
		t.Fatal(err)
	}
	f := excelize.NewFile()
	must(t, f.SetSheetRow("Sheet1", "A1", &sheettest.StudentHeader))
	for i := range 7 {
		class := "Kelas 8A"
		if i == 5 {
			class = "Kelas 7A" // stays behind
		}
		row := []any{sheettest.NIS("T", i), sheettest.StudentName(i), class, "", ""}
		must(t, f.SetSheetRow("Sheet1", "A"+strconv.Itoa(i+2), &row))
	}
	path := filepath.Join(t.TempDir(), "naik-kelas-2026.xlsx")
	must(t, f.SaveAs(path))

	b := p.NewBrowser(t)
	b.SignIn("finance", portaltest.Password)
	b.Visit("/uploads")
	b.WaitVisible(`[data-testid="upload-form"]`)
	b.Do(chromedp.Evaluate[chromedp.Void](`document.querySelector("#f-kind").value = "students"`))
	b.SetUploadFiles(`#f-file`, path)
	b.Click(`[data-testid="upload-submit"]`)
	b.WaitVisible(`[data-testid="upload-changes"]`)
	for sel, want := range map[string]string{`[data-testid="count-changes"]`: "5", `[data-testid="count-new"]`: "1", `[data-testid="count-already"]`: "1"} {
		if got := b.Text(sel); got != want {
			t.Fatalf("%s = %q, want %q", sel, got, want)
		}
	}
	if n := b.Count(`[data-testid="change-row"]`); n != 5 {
		t.Fatalf("%d changes listed, want 5 (the unchanged student counted, not listed)", n)
	}
	if f, o, n := b.Text(`[data-testid="change-field"]`), b.Text(`[data-testid="change-old"]`), b.Text(`[data-testid="change-new"]`); f != "Kelas" || o != "Kelas 7A" || n != "Kelas 8A" {
		t.Fatalf("first change %q: %q → %q", f, o, n)
	}
	shots(b, "naik-kelas-preview")
	b.Click(`[data-testid="upload-commit"]`)
	b.Click(`[data-testid="confirm-yes"]`)
	b.Do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="upload-status"][data-state="done"]`)))
	shots(b, "naik-kelas-done")

	b.Visit("/students")
	b.WaitVisible("body")
	body := b.Text("body")
	if got := strings.Count(body, "Kelas 8A"); got < 6 {
		t.Errorf("the students list shows %d students in Kelas 8A, want 6:\n%s", got, body)
	}
	for i := range 7 {
		st, err := p.Billing.Student(context.Background(), sheettest.NIS("T", i))
		if err != nil {
			t.Fatal(err)
		}
		want := "Kelas 8A"
		if i == 5 {
			want = "Kelas 7A"
		}
		if st.Description != want {
			t.Errorf("%s: class %q at the service, want %q", st.NIS, st.Description, want)
		}
	}
	shots(b, "naik-kelas-students")
}
