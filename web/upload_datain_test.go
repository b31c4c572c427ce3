package web_test

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/xuri/excelize/v2"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/uploads"
	"github.com/sekolah/portal/internal/uploads/sheettest"
)

// englishSheet is a components sheet typed on a computer set to English: 350.000 stored
// as 350, 25.000 as 25, 10/08/2026 as the date 8 October 2026, 30/11/2026 left a text.
func englishSheet(t *testing.T, nis ...string) string {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	date, _ := f.NewStyle(&excelize.Style{NumFmt: 14})
	rows := [][]any{{"NIS", "Nama Tagihan", "Kode Rekening", "Nominal", "Denda", "Jatuh Tempo", "Kedaluwarsa"}}
	for _, n := range nis {
		rows = append(rows, []any{n, "SPP Agustus 2026", "SPP", 350, 25, time.Date(2026, 10, 8, 0, 0, 0, 0, time.UTC), "30/11/2026"})
	}
	for i, r := range rows {
		cell, _ := excelize.CoordinatesToCellName(1, i+1)
		if err := f.SetSheetRow("Sheet1", cell, &r); err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			_ = f.SetCellStyle("Sheet1", "F"+cell[1:], "F"+cell[1:], date)
		}
	}
	_ = f.SetSheetName("Sheet1", "Tagihan")
	path := filepath.Join(t.TempDir(), "tagihan-agustus.xlsx")
	if err := f.SaveAs(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestUploadWarningsAcknowledged: the preview says which sheet and heading row it read and
// lists each kind of warning with a box to tick; a commit without them ticked is refused
// (422, saying what to tick, the ticked ones kept), with HTMX too; with them it goes.
func TestUploadWarningsAcknowledged(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: uploadNow})
	students := []billing.Student{{NIS: "0012345", Name: "Budi Santoso"}, {NIS: "0012346", Name: "Siti Aminah"}}
	if _, err := p.Billing.CreateStudents(context.Background(), students); err != nil {
		t.Fatal(err)
	}
	if err := p.DB.UpsertStudents(context.Background(), []store.Student{{NIS: "0012345", Name: "Budi Santoso", Source: store.SourcePortal},
		{NIS: "0012346", Name: "Siti Aminah", Source: store.SourcePortal}}); err != nil {
		t.Fatal(err)
	}
	c := p.SignedIn(t, "finance")
	form := c.Get("/uploads")
	if accept, _ := form.Doc.Find(`#f-file`).Attr("accept"); accept != uploads.Accept || !strings.Contains(form.Doc.Find(`[data-testid="upload-form"]`).Text(), ".xls, .ods atau .csv") {
		t.Fatalf("the file picker accepts %q; the form says %q", accept, form.Doc.Find(`[data-testid="upload-form"]`).Text())
	}
	data, err := os.ReadFile(englishSheet(t, "0012345", "0012346"))
	if err != nil {
		t.Fatal(err)
	}
	id := uploadIDFrom(t, postUpload(t, p, c, "components", "tagihan-agustus.xlsx", data))
	if j := waitUpload(t, p, id); j.State != uploads.StateReady || j.RowsNew != 2 {
		t.Fatalf("preview: %s, %d new", j.State, j.RowsNew)
	}
	page := c.Get("/uploads/" + id)
	if got := page.Doc.Find(`[data-testid="reading-sheet"]`).Text(); got != "Tagihan" {
		t.Errorf("sheet read = %q", got)
	}
	if got := page.Doc.Find(`[data-testid="reading-header"]`).Text(); got != "baris 1" {
		t.Errorf("heading row = %q", got)
	}
	if got := page.Doc.Find(`[data-testid="count-warnings"]`).Text(); got != "6" {
		t.Errorf("warnings = %q", got)
	}
	for _, code := range []string{"amount_small", "date_order"} {
		box := page.Doc.Find(`[data-testid="ack-` + code + `"] input[type="checkbox"][name="ack"][value="` + code + `"]`)
		if box.Length() != 1 {
			t.Fatalf("no box for %s in:\n%s", code, page.Doc.Find(`[data-testid="upload-acks"]`).Text())
		}
	}
	if got := page.Doc.Find(`[data-testid="ack-date_order"] [data-testid="ack-example"]`).Text(); !strings.Contains(got, "mungkin maksudnya 10 Agu 2026") {
		t.Errorf("date order example = %q", got)
	}
	if n := page.Doc.Find(`[data-testid="issues-table"] tr[data-warning="true"]`).Length(); n != 6 {
		t.Errorf("%d warnings marked in the problems", n)
	}

	commit := func(acks []string, headers ...string) *portaltest.Response {
		return c.Post("/uploads/"+id+"/commit", url.Values{"ack": acks, "confirm": {"yes"}}, headers...)
	}
	res := commit([]string{"amount_small"})
	if res.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("commit without every box: %d", res.StatusCode)
	}
	if got := res.Doc.Find(`[data-testid="upload-ack-error"]`).Text(); !strings.Contains(got, "Centang dulu yang sudah diperiksa: urutan hari dan bulan") {
		t.Errorf("refusal says %q", got)
	}
	if _, ok := res.Doc.Find(`[data-testid="ack-amount_small"] input`).Attr("checked"); !ok {
		t.Error("the ticked box was not kept")
	}
	if aria, _ := res.Doc.Find(`[data-testid="ack-date_order"] input`).Attr("aria-invalid"); aria != "true" {
		t.Error("the box still to tick is not marked")
	}
	res = commit(nil, "HX-Request", "true")
	if res.StatusCode != http.StatusUnprocessableEntity || strings.Contains(res.Body, "<html") || res.Doc.Find(`[data-testid="upload-ack-error"]`).Length() != 1 {
		t.Fatalf("HTMX commit without boxes: %d\n%s", res.StatusCode, res.Body)
	}
	if j, _ := p.Uploads.Job(context.Background(), id); j.State != uploads.StateReady {
		t.Fatalf("a refused commit left the upload %s", j.State)
	}
	res = commit([]string{"amount_small", "date_order"})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("commit with every box: %d\n%s", res.StatusCode, res.Body)
	}
	if j := waitUpload(t, p, id); j.State != uploads.StateDone || j.Created != 2 {
		t.Fatalf("job %s, %d created", j.State, j.Created)
	}
	if got := c.Get("/uploads/" + id).Doc.Find(`[data-testid="upload-acknowledged"]`).Text(); !strings.Contains(got, "nominal di bawah Rp 1.000, urutan hari dan bulan") {
		t.Errorf("the finished upload says %q", got)
	}
}

// TestBrowserUploadDapodik: a school's operator uploads Dapodik's students export as it
// was downloaded; the preview names the sheet, the two heading rows and the columns it does
// not read; committed, the students are in their classes, the aid flags on their pages.
func TestBrowserUploadDapodik(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: uploadNow})
	path := filepath.Join(t.TempDir(), "Daftar_PD-SMPN1Contoh-2027-07-15.xlsx")
	if err := sheettest.Dapodik(path, sheettest.DapodikStudents); err != nil {
		t.Fatal(err)
	}
	b := p.NewBrowser(t)
	b.SignIn("finance", portaltest.Password)
	b.Visit("/uploads")
	b.Do(chromedp.SetValue(chromedp.CSS(`#f-kind`), "students"))
	b.SetUploadFiles(`#f-file`, path)
	b.Click(`[data-testid="upload-submit"]`)
	b.WaitVisible(`[data-testid="upload-reading"]`)
	if got := b.Text(`[data-testid="reading-sheet"]`); got != "Daftar Peserta Didik" {
		t.Errorf("sheet = %q", got)
	}
	if got := b.Text(`[data-testid="reading-header"]`); got != "baris 5 dan 6" {
		t.Errorf("heading rows = %q", got)
	}
	if got := b.Text(`[data-testid="count-new"]`); got != "5" {
		t.Fatalf("new students = %q", got)
	}
	b.Click(`[data-testid="reading-ignored"] summary`)
	ignored := b.Text(`[data-testid="reading-ignored"]`)
	for _, h := range []string{"Kolom yang tidak dibaca (57)", "NISN", "Data Ayah: Nama", "Jarak Rumah ke Sekolah (KM)"} {
		if !strings.Contains(ignored, h) {
			t.Errorf("the columns not read lack %q:\n%s", h, ignored)
		}
	}
	for _, h := range []string{"NIPD", "Rombel Saat Ini", "Penerima KIP"} {
		if strings.Contains(ignored, "\n"+h+"\n") || strings.Contains(ignored, " "+h+"\n") {
			t.Errorf("%s listed as not read", h)
		}
	}
	if got := b.Text(`[data-testid="upload-sample"] tbody tr:nth-child(2) [data-testid="sample-phone"]`); got != "0247601234" {
		t.Errorf("Bella's phone (Telepon, no HP) = %q", got)
	}
	if got := b.Text(`[data-testid="upload-sample"] tbody tr:nth-child(4) [data-testid="sample-aid"]`); !strings.Contains(got, "Penerima KIP") || !strings.Contains(got, "Layak PIP") {
		t.Errorf("Dina's aid flags in the preview = %q", got)
	}
	b.Screenshot("upload-dapodik-preview")
	for _, w := range []int64{1366, 390} {
		b.Do(chromedp.EmulateViewport(w, map[int64]int64{1366: 768, 390: 844}[w]))
		b.Screenshot("upload-dapodik-preview-" + map[int64]string{1366: "1366", 390: "390"}[w])
	}
	b.Do(chromedp.EmulateViewport(1280, 900))

	b.Click(`[data-testid="upload-commit"]`)
	b.Click(`[data-testid="confirm-yes"]`)
	b.Do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="upload-status"][data-state="done"]`)))
	if got := b.Text(`[data-testid="summary-created"]`); got != "5" {
		t.Fatalf("created = %q", got)
	}

	// The students, in their classes.
	b.Visit("/students?class=" + url.QueryEscape("Kelas 7B"))
	list := b.Text(`[data-testid="students-table"]`)
	if !strings.Contains(list, "Candra Wijaya") || !strings.Contains(list, "Dina Maharani") || strings.Contains(list, "Ahmad Fauzi") {
		t.Errorf("Kelas 7B lists:\n%s", list)
	}
	b.Visit("/students/23240704")
	if got := b.Text(`[data-testid="student-class"]`); got != "Kelas 7B" {
		t.Errorf("Dina's class = %q", got)
	}
	if got := b.Text(`[data-testid="student-aid"]`); !strings.Contains(got, "Penerima KIP") || !strings.Contains(got, "Penerima KPS") || !strings.Contains(got, "Layak PIP") {
		t.Errorf("Dina's aid flags = %q", got)
	}
	b.Screenshot("student-aid")
}

// TestBrowserUploadWarnings: the sheet from a computer set to English shows its warnings
// beside the commit, each with a box; ticked, the upload is sent.
func TestBrowserUploadWarnings(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: uploadNow})
	if _, err := p.Billing.CreateStudents(context.Background(), []billing.Student{{NIS: "0012345", Name: "Budi Santoso"},
		{NIS: "0012346", Name: "Siti Aminah"}}); err != nil {
		t.Fatal(err)
	}
	b := p.NewBrowser(t)
	b.SignIn("finance", portaltest.Password)
	b.Visit("/uploads")
	b.SetUploadFiles(`#f-file`, englishSheet(t, "0012345", "0012346"))
	b.Click(`[data-testid="upload-submit"]`)
	b.WaitVisible(`[data-testid="upload-acks"]`)
	if got := b.Count(`[data-testid="upload-acks"] input[type="checkbox"]`); got != 2 {
		t.Fatalf("%d boxes to tick", got)
	}
	for _, w := range []int64{1366, 390} {
		b.Do(chromedp.EmulateViewport(w, map[int64]int64{1366: 768, 390: 844}[w]))
		b.Screenshot("upload-warnings-" + map[int64]string{1366: "1366", 390: "390"}[w])
	}
	b.Do(chromedp.EmulateViewport(1280, 900))
	b.Click(`[data-testid="ack-amount_small"] input`)
	b.Click(`[data-testid="ack-date_order"] input`)
	b.Click(`[data-testid="upload-commit"]`)
	b.Click(`[data-testid="confirm-yes"]`)
	b.Do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="upload-status"][data-state="done"]`)))
	if got := b.Text(`[data-testid="upload-acknowledged"]`); !strings.Contains(got, "urutan hari dan bulan") {
		t.Errorf("acknowledged: %q", got)
	}
}
