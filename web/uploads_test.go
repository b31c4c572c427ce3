package web_test

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/xuri/excelize/v2"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/changes"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/sandbox"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/uploads"
	"github.com/sekolah/portal/internal/uploads/sheettest"
)

var uploadNow = time.Date(2026, 7, 1, 3, 0, 0, 0, time.UTC)

// postUpload sends the upload form as a browser does: multipart, with the CSRF token as a
// form field (unless headers carry X-CSRF-Token instead).
func postUpload(t *testing.T, p *portaltest.Portal, c *portaltest.Client, kind, name string, data []byte, headers ...string) *portaltest.Response {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	if len(headers) == 0 {
		_ = mw.WriteField("csrf_token", c.CSRF)
	}
	_ = mw.WriteField("kind", kind)
	if name != "" {
		fw, err := mw.CreateFormFile("file", name)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = fw.Write(data)
	}
	_ = mw.Close()
	req, err := http.NewRequest(http.MethodPost, p.URL+"/uploads", &body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return c.Do(req)
}

// enrol registers the sheet's students at the sandbox; withRoster also puts them in the
// portal's roster, else the check has to ask the service for each NIS.
func enrol(t *testing.T, p *portaltest.Portal, sh sheettest.Sheet, withRoster bool) {
	t.Helper()
	var list []billing.Student
	for i, n := range sh.NIS {
		list = append(list, billing.Student{NIS: n, Name: sh.Names[i], Description: "Kelas 7A"})
	}
	if _, err := p.Billing.CreateStudents(context.Background(), list); err != nil {
		t.Fatal(err)
	}
	if withRoster {
		var roster []store.Student
		for i, n := range sh.NIS {
			roster = append(roster, store.Student{NIS: n, Name: sh.Names[i], Source: store.SourcePortal})
		}
		if err := p.DB.UpsertStudents(context.Background(), roster); err != nil {
			t.Fatal(err)
		}
	}
}

func uploadIDFrom(t *testing.T, res *portaltest.Response) string {
	t.Helper()
	loc := res.Header.Get("Location")
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/uploads/") {
		t.Fatalf("upload answered %d %q:\n%s", res.StatusCode, loc, res.Body)
	}
	return strings.TrimPrefix(loc, "/uploads/")
}

func waitUpload(t *testing.T, p *portaltest.Portal, id string) store.UploadJob {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	j, err := p.Uploads.Wait(ctx, id)
	if err != nil {
		t.Fatalf("wait for upload %s: %v (state %s)", id, err, j.State)
	}
	return j
}

func countComponents(t *testing.T, p *portaltest.Portal) int {
	t.Helper()
	n := 0
	for _, err := range p.Billing.All(context.Background(), billing.Query{}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	return n
}

func TestUploadComponentsPreviewCommitAndHistory(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: uploadNow})
	sh, err := sheettest.Components(filepath.Join(t.TempDir(), "tagihan-juli.xlsx"), sheettest.Options{Rows: 30, Students: 10, Bad: []int{2, 11, 20}})
	if err != nil {
		t.Fatal(err)
	}
	enrol(t, p, sh, false) // NIS known only at the service: the check asks for them
	data, _ := os.ReadFile(sh.Path)
	c := p.SignedIn(t, "finance")

	res := c.Get("/uploads")
	if res.StatusCode != http.StatusOK || res.Doc.Find(`[data-testid="upload-form"]`).Length() != 1 {
		t.Fatalf("upload page: %d", res.StatusCode)
	}
	if res.Doc.Find(`[data-testid="nav-uploads"][aria-current="page"]`).Length() != 1 {
		t.Fatal("the Unggah navigation item is missing or not current")
	}
	id := uploadIDFrom(t, postUpload(t, p, c, "components", "tagihan-juli.xlsx", data))
	j := waitUpload(t, p, id)
	if j.State != uploads.StateReady || j.RowsTotal != 30 || j.RowsNew != 27 || j.RowsError != 3 || j.RowsAlready != 0 {
		t.Fatalf("analysis: %+v", j)
	}

	res = c.Get("/uploads/" + id)
	doc := res.Doc
	for sel, want := range map[string]string{`[data-testid="count-rows"]`: "30", `[data-testid="count-new"]`: "27", `[data-testid="count-error"]`: "3", `[data-testid="count-already"]`: "0"} {
		if got := strings.TrimSpace(doc.Find(sel).Text()); got != want {
			t.Errorf("%s = %q, want %q", sel, got, want)
		}
	}
	for _, bad := range sh.Bad {
		row := doc.Find(`[data-testid="issue-` + bad.Cell + `"]`)
		if row.Length() != 1 {
			t.Errorf("no problem listed for cell %s", bad.Cell)
			continue
		}
		if msg := row.Find(`[data-testid="issue-message"]`).Text(); !strings.HasPrefix(msg, "Sel "+bad.Cell+":") {
			t.Errorf("message for %s = %q, want it to name the cell", bad.Cell, msg)
		}
	}
	if got := doc.Find(`[data-testid="issue-D4"] [data-testid="issue-message"]`).Text(); !strings.Contains(got, "dua ratus ribu") || !strings.Contains(got, "bukan nominal") {
		t.Errorf("amount message = %q", got)
	}
	if got := doc.Find(`[data-testid="issue-F13"] [data-testid="issue-message"]`).Text(); !strings.Contains(got, "Jatuh tempo 10 Agu 2026 jatuh setelah tanggal kedaluwarsa 9 Agu 2026") {
		t.Errorf("date order message = %q", got)
	}
	if got := doc.Find(`[data-testid="issue-C22"] [data-testid="issue-message"]`).Text(); !strings.Contains(got, "KOPERASI") || !strings.Contains(got, "SPP, BCA, MANDIRI") {
		t.Errorf("account message = %q", got)
	}
	var sum int64
	doc.Find(`[data-testid="upload-totals"] tbody tr td:nth-child(3)`).Each(func(_ int, s *goquery.Selection) {
		v, _ := i18n.ParseRupiah(s.Text())
		sum += v
	})
	if sum != sh.Total {
		t.Errorf("totals per account add up to %d, want %d", sum, sh.Total)
	}

	// The polled status and the problem pager are fragments for HTMX.
	res = c.Get("/uploads/"+id+"/status", "HX-Request", "true")
	if strings.Contains(res.Body, "<html") || !strings.Contains(res.Body, `id="upload-status"`) {
		t.Fatalf("status fragment:\n%s", res.Body)
	}
	res = c.Get("/uploads/"+id+"/issues?offset=0", "HX-Request", "true")
	if strings.Contains(res.Body, "<html") || res.Doc.Find(`[data-testid="issues-table"] tbody tr`).Length() != 3 {
		t.Fatalf("issues fragment:\n%s", res.Body)
	}

	// The error workbook: the three rows as they were, with what is wrong.
	res = c.Get("/uploads/" + id + "/errors.xlsx")
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" {
		t.Fatalf("error workbook: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	rows := readWorkbook(t, []byte(res.Body), "Tagihan")
	if len(rows) != 4 || rows[0][0] != "NIS" || rows[0][9] != "Baris asal" || rows[0][10] != "Kesalahan" {
		t.Fatalf("error workbook rows: %q", rows)
	}
	for i, bad := range sh.Bad {
		// The cell where it is now (row i+2 of the error workbook), and where it was.
		now := bad.Cell[:1] + strconv.Itoa(i+2)
		if rows[i+1][9] != strconv.Itoa(bad.Row) || !strings.Contains(rows[i+1][10], "Sel "+now+" ("+bad.Cell+" di berkas yang diunggah):") {
			t.Errorf("error workbook row %d = %q, want row %d and cell %s, now %s", i+1, rows[i+1], bad.Row, bad.Cell, now)
		}
	}

	// Commit: 27 components at the service, none for the bad rows.
	res = c.Post("/uploads/"+id+"/commit", confirmYes())
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("commit: %d\n%s", res.StatusCode, res.Body)
	}
	if res := c.Post("/uploads/"+id+"/commit", confirmYes()); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("second commit: %d", res.StatusCode)
	}
	j = waitUpload(t, p, id)
	if j.State != uploads.StateDone || j.Created != 27 || j.Failed != 0 {
		t.Fatalf("job: state %s, created %d, failed %d", j.State, j.Created, j.Failed)
	}
	if n := countComponents(t, p); n != 27 {
		t.Fatalf("the service has %d components, want 27", n)
	}
	res = c.Get("/uploads/" + id)
	bar := res.Doc.Find(`[data-testid="progress-bar"]`)
	if v, _ := bar.Attr("value"); v != "27" {
		t.Errorf("progress value = %q", v)
	}
	if m, _ := bar.Attr("max"); m != "27" {
		t.Errorf("progress max = %q", m)
	}
	if got := res.Doc.Find(`[data-testid="progress-percent"]`).Text(); got != "100%" {
		t.Errorf("progress = %q", got)
	}
	if got := res.Doc.Find(`[data-testid="summary-created"]`).Text(); got != "27" {
		t.Errorf("created = %q", got)
	}
	if got := res.Doc.Find(`[data-testid="summary-errors"]`).Text(); got != "3" {
		t.Errorf("errors = %q", got)
	}
	if res.Doc.Find(`[data-testid="upload-commit"]`).Length() != 0 {
		t.Error("a committed upload still offers to commit")
	}

	// History: who, the file and its hash, the counts, the state.
	res = c.Get("/uploads/history")
	row := res.Doc.Find(`[data-testid="upload-` + id + `"]`)
	if row.Length() != 1 || !strings.Contains(row.Text(), "tagihan-juli.xlsx") || !strings.Contains(row.Text(), "oleh Finance Staf") ||
		!strings.Contains(row.Text(), "Selesai") || !strings.Contains(row.Find(`[data-testid="upload-rows"]`).Text(), "27 baru · 0 sudah ada · 3 bermasalah") ||
		!strings.Contains(row.Find(`[data-testid="upload-result"]`).Text(), "27 tercatat · 0 ditolak") {
		t.Fatalf("history row: %q", row.Text())
	}
	// The file's hash is for whoever asks: behind "Rincian" on the upload's page, not
	// in the history's rows.
	if strings.Contains(row.Text(), j.FileSHA256[:8]) {
		t.Errorf("history row shows the hash: %q", row.Text())
	}
	page := c.Get("/uploads/" + id)
	if got := strings.Join(strings.Fields(page.Doc.Find(`details[data-testid="upload-details"] [data-testid="upload-sha256"]`).Text()), ""); got != j.FileSHA256 {
		t.Errorf("upload page hash behind details = %q, want %q", got, j.FileSHA256)
	}
	if res := c.Get("/uploads/history", "HX-Request", "true"); strings.Contains(res.Body, "<html") {
		t.Error("history for HTMX is a whole page")
	}

	// The same file again: a warning first, then the rows already sent are recognised.
	id2 := uploadIDFrom(t, postUpload(t, p, c, "components", "tagihan-juli (1).xlsx", data))
	res = c.Get("/uploads/" + id2)
	if res.Doc.Find(`[data-testid="upload-duplicate"]`).Length() != 1 || res.Doc.Find(`[data-testid="upload-duplicate"] a[href="/uploads/`+id+`"]`).Length() != 1 {
		t.Fatalf("no warning about the earlier upload:\n%s", res.Doc.Find(`#upload-status`).Text())
	}
	if j2, _ := p.DB.UploadJobByID(context.Background(), id2); j2.State != uploads.StateHeld {
		t.Fatalf("re-upload state %s, want held", j2.State)
	}
	if res := c.Post("/uploads/"+id2+"/analyse", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("continue: %d", res.StatusCode)
	}
	j2 := waitUpload(t, p, id2)
	if j2.RowsAlready != 27 || j2.RowsNew != 0 || j2.RowsError != 3 {
		t.Fatalf("re-upload: new %d, already %d, errors %d", j2.RowsNew, j2.RowsAlready, j2.RowsError)
	}
	res = c.Get("/uploads/" + id2)
	if res.Doc.Find(`[data-testid="upload-commit"]`).Length() != 0 || res.Doc.Find(`[data-testid="upload-nothing"]`).Length() != 1 {
		t.Error("nothing new, yet the page offers to send")
	}
	if res := c.Post("/uploads/"+id2+"/discard", confirmYes()); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("discard: %d", res.StatusCode)
	}
	if _, err := p.DB.UploadFileSize(context.Background(), id2, store.UploadSheet); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the discarded upload's sheet is still kept: %v", err)
	}
	// Every step is in the audit log.
	entries, _, err := p.DB.ListAudit(context.Background(), store.AuditFilter{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range entries {
		seen[e.Action] = true
	}
	for _, a := range []string{"upload.receive", "upload.commit", "upload.analyse", "upload.discard", changes.ActionComponentsCreate} {
		if !seen[a] {
			t.Errorf("audit log lacks %s", a)
		}
	}
}

func TestUploadStudentsFillTheRoster(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: uploadNow})
	sh, err := sheettest.Students(filepath.Join(t.TempDir(), "siswa.xlsx"), sheettest.Options{Rows: 12, NISPrefix: "S", Bad: []int{4}})
	if err != nil {
		t.Fatal(err)
	}
	// One of them is already at the service, without class, phone or e-mail: not an
	// error, and not created again; the sheet's row updates the record.
	if _, err := p.Billing.CreateStudents(context.Background(), []billing.Student{{NIS: sh.NIS[0], Name: sh.Names[0]}}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(sh.Path)
	c := p.SignedIn(t, "admin")
	id := uploadIDFrom(t, postUpload(t, p, c, "students", "siswa.xlsx", data))
	j := waitUpload(t, p, id)
	if j.State != uploads.StateReady || j.RowsNew != 10 || j.RowsAlready != 0 || j.RowsError != 1 {
		t.Fatalf("analysis: %+v", j)
	}
	if ch, err := p.Uploads.Changes(context.Background(), id); err != nil || ch.Count != 1 || ch.First[0].NIS != sh.NIS[0] {
		t.Fatalf("changes: %+v %v", ch, err)
	}
	res := c.Get("/uploads/" + id)
	if msg := res.Doc.Find(`[data-testid="issue-E6"] [data-testid="issue-message"]`).Text(); !strings.Contains(msg, "Sel E6") || !strings.Contains(msg, "bukan-email") {
		t.Fatalf("email problem = %q", msg)
	}
	c.Post("/uploads/"+id+"/commit", confirmYes())
	j = waitUpload(t, p, id)
	if j.State != uploads.StateDone || j.Created != 11 {
		t.Fatalf("job: %s, done %d", j.State, j.Created)
	}
	if st, err := p.Billing.Student(context.Background(), sh.NIS[0]); err != nil || st.Description == "" || st.Email == "" {
		t.Errorf("the student known before was not updated: %+v %v", st, err)
	}
	roster, err := p.DB.StudentsByNIS(context.Background(), sh.NIS)
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range sh.NIS {
		s, ok := roster[n]
		switch {
		case i == 4:
			if ok {
				t.Errorf("the student with the bad email (%s) is in the roster", n)
			}
		case i == 0:
			// Known to the service before; the check added it to the roster as found there.
		case !ok || s.Source != store.SourceUpload || s.Name != sh.Names[i]:
			t.Errorf("roster %s = %+v, want from the upload", n, s)
		}
	}
	if _, err := p.Billing.Student(context.Background(), sh.NIS[7]); err != nil {
		t.Errorf("student %s not at the service: %v", sh.NIS[7], err)
	}
}

func TestUploadRefusesBadFiles(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: uploadNow, Uploads: func(c *uploads.Config) {
		c.MaxBytes = 64 << 10
		c.Limits = uploads.Limits{MaxBytes: 64 << 10, UnzipSize: 256 << 10, MaxRows: 1000}
	}})
	c := p.SignedIn(t, "finance")
	c.Get("/uploads")
	small, err := sheettest.Components(filepath.Join(t.TempDir(), "a.xlsx"), sheettest.Options{Rows: 3})
	if err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(small.Path)
	// Over the 64 KB limit, but inside the request limit (64 KB and some form overhead):
	// refused when stored. Far over: refused while the request is read.
	big, err := sheettest.Components(filepath.Join(t.TempDir(), "big.xlsx"), sheettest.Options{Rows: 2000})
	if err != nil {
		t.Fatal(err)
	}
	bigData, _ := os.ReadFile(big.Path)
	huge, err := sheettest.Components(filepath.Join(t.TempDir(), "huge.xlsx"), sheettest.Options{Rows: 6000})
	if err != nil {
		t.Fatal(err)
	}
	hugeData, _ := os.ReadFile(huge.Path)
	if len(bigData) <= 64<<10 || len(bigData) >= 120<<10 || len(hugeData) <= 200<<10 {
		t.Fatalf("test files of %d and %d bytes do not straddle the limits", len(bigData), len(hugeData))
	}
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	tests := []struct {
		name, kind, file string
		data             []byte
		field, want      string
		// problem: accepted, then refused once read, with this file problem.
		problem string
	}{
		{"no file", "components", "", nil, "error-file", "Pilih berkas .xlsx, .xls, .ods atau .csv", ""},
		{"no kind", "", "a.xlsx", good, "error-kind", "Pilih jenis data", ""},
		{"a text file", "components", "tagihan.txt", []byte("NIS;Nominal\n1;2\n"), "error-file", "Unggah berkas Excel (.xlsx, .xls), LibreOffice (.ods) atau CSV", ""},
		{"a picture renamed", "components", "tagihan.xlsx", png, "", "", "not_spreadsheet"},
		{"a broken xls", "components", "tagihan.xls", []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}, "", "", "unreadable"},
		{"a web page saved as xls", "components", "tagihan.xls", []byte("<html><body><table><tr><td>NIS</td></tr></table></body></html>"), "", "", "web_page"},
		{"too big", "components", "big.xlsx", bigData, "error-file", "lebih besar dari", ""},
		{"far too big", "components", "huge.xlsx", hugeData, "error-file", "lebih besar dari", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := postUpload(t, p, c, tt.kind, tt.file, tt.data)
			if tt.problem != "" {
				// Refused only once read: the upload's page says why.
				id := uploadIDFrom(t, res)
				j := waitUpload(t, p, id)
				if j.State != uploads.StateInvalid || j.Problem != tt.problem {
					t.Fatalf("state %s, problem %q", j.State, j.Problem)
				}
				page := c.Get("/uploads/" + id)
				want := uploads.FileMessage(i18n.NewPrinter(i18n.Indonesian, nil), tt.problem, nil)
				if msg := page.Doc.Find(`[data-testid="upload-problem"]`).Text(); !strings.Contains(msg, want) {
					t.Fatalf("problem shown = %q, want %q", msg, want)
				}
				return
			}
			want := http.StatusUnprocessableEntity
			if tt.name == "far too big" {
				want = http.StatusRequestEntityTooLarge
			}
			if res.StatusCode != want {
				t.Fatalf("status %d, want %d", res.StatusCode, want)
			}
			if msg := res.Doc.Find(`[data-testid="` + tt.field + `"]`).Text(); !strings.Contains(msg, tt.want) {
				t.Fatalf("%s = %q, want %q", tt.field, msg, tt.want)
			}
		})
	}

	// A sheet whose content unzips past the limit is refused before it is read.
	var bomb bytes.Buffer
	writeZipBomb(t, &bomb, 400<<10)
	id := uploadIDFrom(t, postUpload(t, p, c, "components", "bom.xlsx", bomb.Bytes()))
	j := waitUpload(t, p, id)
	if j.State != uploads.StateInvalid || j.Problem != "too_big_unzipped" {
		t.Fatalf("zip bomb: state %s, problem %q", j.State, j.Problem)
	}
	if msg := c.Get("/uploads/" + id).Doc.Find(`[data-testid="upload-problem"]`).Text(); !strings.Contains(msg, "Berkas ditolak agar portal tetap berjalan") {
		t.Fatalf("zip bomb message = %q", msg)
	}

	// Missing columns are one message naming them all, not an error per row.
	f := excelize.NewFile()
	_ = f.SetSheetRow("Sheet1", "A1", &[]any{"NIS", "Nama Tagihan", "Jumlah"})
	_ = f.SetSheetRow("Sheet1", "A2", &[]any{"1", "SPP", 100})
	var buf bytes.Buffer
	_ = f.Write(&buf)
	id = uploadIDFrom(t, postUpload(t, p, c, "components", "kurang.xlsx", buf.Bytes()))
	j = waitUpload(t, p, id)
	msg := c.Get("/uploads/" + id).Doc.Find(`[data-testid="upload-problem"]`).Text()
	if j.Problem != "missing_columns" || !strings.Contains(msg, "Kode Rekening, Jatuh Tempo, Kedaluwarsa") {
		t.Fatalf("missing columns: %q / %q", j.Problem, msg)
	}
}

func TestUploadCSRFAndRoles(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: uploadNow})
	sh, err := sheettest.Components(filepath.Join(t.TempDir(), "a.xlsx"), sheettest.Options{Rows: 3})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(sh.Path)

	finance := p.SignedIn(t, "finance")
	// A forged form (wrong token) is refused; the token in the header is enough.
	if res := postUpload(t, p, finance, "components", "a.xlsx", data, "X-CSRF-Token", "forged"); res.StatusCode != http.StatusForbidden {
		t.Fatalf("forged token: %d", res.StatusCode)
	}
	id := uploadIDFrom(t, postUpload(t, p, finance, "components", "a.xlsx", data, "X-CSRF-Token", finance.CSRF))
	waitUpload(t, p, id)

	principal := p.SignedIn(t, "principal")
	if principal.Get("/").Doc.Find(`[data-testid="nav-uploads"]`).Length() != 0 {
		t.Error("the principal sees the upload navigation")
	}
	for _, path := range []string{"/uploads", "/uploads/history", "/uploads/templates/components.xlsx", "/uploads/" + id, "/uploads/" + id + "/errors.xlsx"} {
		if res := principal.Get(path); res.StatusCode != http.StatusForbidden {
			t.Errorf("principal GET %s: %d, want 403", path, res.StatusCode)
		}
	}
	if res := postUpload(t, p, principal, "components", "a.xlsx", data); res.StatusCode != http.StatusForbidden {
		t.Errorf("principal upload: %d, want 403", res.StatusCode)
	}
	for _, action := range []string{"commit", "discard", "analyse", "retry"} {
		if res := principal.Post("/uploads/"+id+"/"+action, url.Values{}); res.StatusCode != http.StatusForbidden {
			t.Errorf("principal POST %s: %d, want 403", action, res.StatusCode)
		}
	}
	if j, _ := p.DB.UploadJobByID(context.Background(), id); j.State != uploads.StateReady {
		t.Errorf("after the principal's attempts the upload is %s", j.State)
	}
	admin := p.SignedIn(t, "admin")
	if res := admin.Get("/uploads/" + id); res.StatusCode != http.StatusOK {
		t.Errorf("admin: %d", res.StatusCode)
	}
	if res := admin.Get("/uploads/no-such-upload"); res.StatusCode != http.StatusNotFound {
		t.Errorf("unknown upload: %d", res.StatusCode)
	}
	anonymous := p.NewClient(t)
	if res := anonymous.Get("/uploads"); res.StatusCode != http.StatusSeeOther {
		t.Errorf("anonymous: %d", res.StatusCode)
	}
}

func TestUploadTemplates(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{})
	c := p.SignedIn(t, "finance")
	for kind, want := range map[string][]string{
		"components": {"NIS", "Nama Tagihan", "Kode Rekening", "Nominal", "Denda", "Jatuh Tempo", "Kedaluwarsa", "Tanggal Aktif", "Catatan", "ID Tagihan"},
		"students":   {"NIS", "Nama Siswa", "Kelas", "No. Telepon", "Email"},
	} {
		res := c.Get("/uploads/templates/" + kind + ".xlsx")
		if res.StatusCode != http.StatusOK || !strings.Contains(res.Header.Get("Content-Disposition"), "attachment") {
			t.Fatalf("%s template: %d %q", kind, res.StatusCode, res.Header.Get("Content-Disposition"))
		}
		f, err := excelize.OpenReader(strings.NewReader(res.Body))
		if err != nil {
			t.Fatal(err)
		}
		sheets := f.GetSheetList()
		if len(sheets) != 2 || sheets[1] != "Petunjuk" {
			t.Errorf("%s sheets = %v", kind, sheets)
		}
		header, _ := f.GetRows(sheets[0])
		if len(header) == 0 || strings.Join(header[0], "|") != strings.Join(want, "|") {
			t.Errorf("%s header = %v", kind, header)
		}
		panes, _ := f.GetPanes(sheets[0])
		if !panes.Freeze || panes.YSplit != 1 {
			t.Errorf("%s header not frozen: %+v", kind, panes)
		}
		dvs, _ := f.GetDataValidations(sheets[0])
		if kind == "components" {
			var list bool
			for _, dv := range dvs {
				if dv.Type == "list" && strings.Contains(dv.Formula1, "SPP,BCA,MANDIRI") {
					list = true
				}
			}
			if !list || len(dvs) < 5 {
				t.Errorf("components template checks: %d, account list %v", len(dvs), list)
			}
		}
		help, _ := f.GetRows("Petunjuk")
		text := ""
		for _, r := range help {
			text += strings.Join(r, " ") + "\n"
		}
		if !strings.Contains(text, "Wajib / Required") || !strings.Contains(text, "English") {
			t.Errorf("%s instructions:\n%s", kind, text)
		}
		f.Close()
		// A template is itself a valid (empty) upload.
		id := uploadIDFrom(t, postUpload(t, p, c, kind, "templat.xlsx", []byte(res.Body)))
		if j := waitUpload(t, p, id); j.State != uploads.StateReady || j.RowsTotal != 0 {
			t.Errorf("%s template uploaded: %s %q, %d rows", kind, j.State, j.Problem, j.RowsTotal)
		}
	}
	if res := c.Get("/uploads/templates/other.xlsx"); res.StatusCode != http.StatusNotFound {
		t.Errorf("unknown template: %d", res.StatusCode)
	}
}

func TestUploadIssuesPagingAndEnglish(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: uploadNow})
	var bad []int
	for i := range 60 {
		bad = append(bad, i)
	}
	sh, err := sheettest.Components(filepath.Join(t.TempDir(), "a.xlsx"), sheettest.Options{Rows: 70, Students: 7, Bad: bad})
	if err != nil {
		t.Fatal(err)
	}
	enrol(t, p, sh, true)
	data, _ := os.ReadFile(sh.Path)
	c := p.SignedIn(t, "finance")
	c.Post("/lang", url.Values{"lang": {"en"}, "next": {"/uploads"}})
	id := uploadIDFrom(t, postUpload(t, p, c, "components", "a.xlsx", data))
	if j := waitUpload(t, p, id); j.RowsError != 60 || j.Issues != 60 {
		t.Fatalf("errors %d, issues %d", j.RowsError, j.Issues)
	}
	res := c.Get("/uploads/" + id)
	if n := res.Doc.Find(`[data-testid="issues-table"] tbody tr`).Length(); n != 50 {
		t.Fatalf("first page shows %d problems", n)
	}
	next, ok := res.Doc.Find(`[data-testid="page-next"]`).Attr("hx-get")
	if !ok || next != "/uploads/"+id+"/issues?offset=50" {
		t.Fatalf("next page link %q", next)
	}
	if msg := res.Doc.Find(`[data-testid="issue-D2"] [data-testid="issue-message"]`).Text(); !strings.HasPrefix(msg, "Cell D2: ") || !strings.Contains(msg, "not an amount") {
		t.Errorf("English message = %q", msg)
	}
	res = c.Get(next, "HX-Request", "true")
	if n := res.Doc.Find(`[data-testid="issues-table"] tbody tr`).Length(); n != 10 || strings.Contains(res.Body, "<html") {
		t.Fatalf("second page fragment: %d rows", n)
	}
	if res := c.Get(next); res.Doc.Find(`[data-testid="upload-status"]`).Length() != 1 {
		t.Error("the pager's address without JavaScript is not a whole page")
	}
	rows := readWorkbook(t, []byte(c.Get("/uploads/"+id+"/errors.xlsx").Body), "Tagihan")
	if len(rows) != 61 || rows[0][10] != "Errors" || !strings.HasPrefix(rows[1][10], "Cell D2: ") {
		t.Fatalf("English error workbook: %d rows, header %q, first %q", len(rows), rows[0], rows[1])
	}
}

func readWorkbook(t *testing.T, data []byte, sheet string) [][]string {
	t.Helper()
	f, err := excelize.OpenReader(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("open workbook: %v", err)
	}
	defer f.Close()
	rows, err := f.GetRows(sheet)
	if err != nil {
		t.Fatalf("read %s: %v (sheets %v)", sheet, err, f.GetSheetList())
	}
	return rows
}

// writeZipBomb writes a zip whose one worksheet inflates to size bytes of nothing.
func writeZipBomb(t *testing.T, w *bytes.Buffer, size int) {
	t.Helper()
	zw := zip.NewWriter(w)
	for _, part := range [][2]string{
		{"[Content_Types].xml", `<Types><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/></Types>`},
		{"xl/workbook.xml", `<workbook xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Tagihan" sheetId="1" r:id="rId1"/></sheets></workbook>`},
		{"xl/_rels/workbook.xml.rels", `<Relationships><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`},
	} {
		f, _ := zw.Create(part[0])
		_, _ = f.Write([]byte(part[1]))
	}
	f, err := zw.CreateHeader(&zip.FileHeader{Name: "xl/worksheets/sheet1.xml", Method: zip.Deflate})
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.Write(bytes.Repeat([]byte(" "), size))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestUploadManyProblems: when a sheet has more problems than are kept (20 here instead of
// uploads.MaxIssuesKept), the page says it shows the first ones of how many, pages through
// those only, and counts each kind of problem exactly.
func TestUploadManyProblems(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: uploadNow, Uploads: func(c *uploads.Config) { c.MaxIssues = 20 }})
	bad := make([]int, 1200)
	for i := range bad {
		bad[i] = i
	}
	sh, err := sheettest.Components(filepath.Join(t.TempDir(), "a.xlsx"), sheettest.Options{Rows: 1210, Students: 110, Bad: bad})
	if err != nil {
		t.Fatal(err)
	}
	enrol(t, p, sh, true)
	data, _ := os.ReadFile(sh.Path)
	c := p.SignedIn(t, "finance")
	id := uploadIDFrom(t, postUpload(t, p, c, "components", "a.xlsx", data))
	if j := waitUpload(t, p, id); j.Issues != 1200 || j.IssuesKept != 20 {
		t.Fatalf("issues %d, kept %d", j.Issues, j.IssuesKept)
	}
	res := c.Get("/uploads/" + id)
	if got := res.Doc.Find(`[data-testid="issues-truncated"]`).Text(); !strings.Contains(got, "20 masalah pertama dari 1.200") {
		t.Errorf("truncation note %q", got)
	}
	if n := res.Doc.Find(`[data-testid="issues-table"] tbody tr`).Length(); n != 20 {
		t.Errorf("%d problems listed, want the 20 kept", n)
	}
	if res.Doc.Find(`[data-testid="page-next"]`).Length() != 0 {
		t.Error("a next page beyond the problems kept")
	}
	if got := res.Doc.Find(`[data-testid="count-error"]`).Parent().Text(); !strings.Contains(got, "1.200 masalah") {
		t.Errorf("error count card %q", got)
	}
	kinds := map[string]string{}
	res.Doc.Find(`[data-testid="issue-kinds"] tbody tr`).Each(func(_ int, s *goquery.Selection) {
		kinds[strings.TrimSpace(s.Find(`[data-testid="kind-column"]`).Text())] = strings.TrimSpace(s.Find(`[data-testid="kind-count"]`).Text())
	})
	// Every third bad row has its amount, due day or account wrong: 400 each.
	if len(kinds) != 3 || kinds["D"] != "400" || kinds["F"] != "400" || kinds["C"] != "400" {
		t.Errorf("counts per kind %v", kinds)
	}
	if ex := res.Doc.Find(`[data-testid="issue-kinds"] [data-testid="kind-example"]`).First().Text(); !strings.Contains(ex, "Sel ") {
		t.Errorf("kind example %q", ex)
	}
}

// TestUploadWaitingForTheService: while the payment service does not answer, a committed
// upload's page says it waits and since when, and offers to try now; trying now, once the
// service is back, sends the rows at once instead of at the end of the pause.
func TestUploadWaitingForTheService(t *testing.T) {
	t.Parallel()
	// Real time: the page says the time of day the upload began to wait.
	p := portaltest.Start(t, portaltest.Options{Uploads: func(c *uploads.Config) {
		c.RetryMax = time.Minute // the first pause while waiting is at least 45 s
	}})
	sh, err := sheettest.Components(filepath.Join(t.TempDir(), "a.xlsx"), sheettest.Options{Rows: 12, Students: 4})
	if err != nil {
		t.Fatal(err)
	}
	enrol(t, p, sh, true)
	data, _ := os.ReadFile(sh.Path)
	c := p.SignedIn(t, "finance")
	id := uploadIDFrom(t, postUpload(t, p, c, "components", "a.xlsx", data))
	waitUpload(t, p, id)
	p.Sandbox.SetFaults(sandbox.Faults{ErrorRate: 1, Status: 503})
	if res := c.Post("/uploads/"+id+"/commit", confirmYes()); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("commit: %d", res.StatusCode)
	}
	var j store.UploadJob
	for deadline := time.Now().Add(10 * time.Second); j.WaitingSince.IsZero(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the upload does not wait: %s", j.State)
		}
		j, _ = p.DB.UploadJobByID(context.Background(), id)
	}
	res := c.Get("/uploads/" + id)
	since := j.WaitingSince.In(p.Config.Location).Format("15.04")
	// (At midnight the day is said too: "sejak 23 Nov 2026 23.59".)
	if got := res.Doc.Find(`[data-testid="upload-waiting"]`).Text(); !strings.Contains(got, "Menunggu layanan pembayaran sejak ") ||
		!strings.Contains(got, since+" · mencoba lagi otomatis") {
		t.Fatalf("waiting note %q, want it to say since %s", got, since)
	}
	if res.Doc.Find(`[data-testid="upload-hurry"]`).Length() != 1 {
		t.Fatal("no way to try now")
	}
	p.Sandbox.SetFaults(sandbox.Faults{})
	res = c.Post("/uploads/"+id+"/retry", nil)
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("try now: %d", res.StatusCode)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if j, err := p.Uploads.Wait(ctx, id); err != nil || j.State != uploads.StateDone || j.Created != 12 {
		t.Fatalf("after trying now: %s, created %d, %v", j.State, j.Created, err)
	}
	if got := c.Get("/uploads/" + id).Doc.Find(`[data-testid="upload-waiting"]`).Length(); got != 0 {
		t.Error("the finished upload still says it waits")
	}
}

// TestUploadNoStaleWords: without JavaScript, the page shown after an action (its flash
// included) never says the upload is being checked or being sent once it no longer is:
// the flashes say what was done, the status says where the upload is.
func TestUploadNoStaleWords(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: uploadNow})
	sh, err := sheettest.Components(filepath.Join(t.TempDir(), "a.xlsx"), sheettest.Options{Rows: 12, Students: 4})
	if err != nil {
		t.Fatal(err)
	}
	enrol(t, p, sh, true)
	data, _ := os.ReadFile(sh.Path)
	c := p.SignedIn(t, "finance")
	stale := func(step, path string, words ...string) {
		t.Helper()
		res := c.Get(path) // the page the redirect leads to, with its flash
		body := res.Doc.Find("body").Text()
		for _, w := range words {
			if strings.Contains(strings.ToLower(body), strings.ToLower(w)) {
				t.Errorf("after %s, with the upload %s, the page says %q", step, res.Doc.Find(`[data-testid="upload-state"]`).Text(), w)
			}
		}
	}
	id := uploadIDFrom(t, postUpload(t, p, c, "components", "a.xlsx", data))
	waitUpload(t, p, id)
	stale("the upload", "/uploads/"+id, "sedang diperiksa", "diperbarui sendiri")
	if res := c.Post("/uploads/"+id+"/commit", confirmYes()); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("commit: %d", res.StatusCode)
	}
	if j := waitUpload(t, p, id); j.State != uploads.StateDone {
		t.Fatalf("sent: %s", j.State)
	}
	stale("the commit", "/uploads/"+id, "berjalan terus", "sedang dikirim", "boleh meninggalkan halaman", "akan dikirim")
}

// TestUploadPreviewSample: the preview shows the first rows as they will be sent, in the
// person's formats (the active day and the notes too), with the student's name from the
// roster.
func TestUploadPreviewSample(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: uploadNow})
	sh, err := sheettest.Components(filepath.Join(t.TempDir(), "a.xlsx"), sheettest.Options{Rows: 30, Students: 5, Bad: []int{0}})
	if err != nil {
		t.Fatal(err)
	}
	enrol(t, p, sh, true)
	data, _ := os.ReadFile(sh.Path)
	c := p.SignedIn(t, "finance")
	id := uploadIDFrom(t, postUpload(t, p, c, "components", "a.xlsx", data))
	waitUpload(t, p, id)
	res := c.Get("/uploads/" + id)
	rows := res.Doc.Find(`[data-testid="upload-sample"] tbody tr`)
	if rows.Length() != uploads.SampleSize {
		t.Fatalf("sample of %d rows, want %d", rows.Length(), uploads.SampleSize)
	}
	// The first row has a bad amount: the sample starts at the second (sheet row 3).
	first := rows.First()
	want := map[string]string{"sample-row": "3", "sample-nis": sh.NIS[1], "sample-student": sh.Names[1],
		"sample-name": "SPP Juli 2026", "sample-account": "BCA", "sample-amount": i18n.Rupiah(300_000), "sample-penalty": i18n.Rupiah(25_000),
		"sample-due": "10 Jul 2026", "sample-expiry": "10 Agu 2026",
		"sample-active": "aktif mulai 20 Jun 2026", "sample-notes": "Dibuat oleh generator"}
	for testid, w := range want {
		if got := strings.TrimSpace(first.Find(`[data-testid="` + testid + `"]`).Text()); got != w {
			t.Errorf("%s = %q, want %q", testid, got, w)
		}
	}
	c.Post("/lang", url.Values{"lang": {"en"}, "next": {"/uploads/" + id}})
	res = c.Get("/uploads/" + id)
	if got := strings.TrimSpace(res.Doc.Find(`[data-testid="upload-sample"] tbody tr [data-testid="sample-expiry"]`).First().Text()); got != "10 Aug 2026" {
		t.Errorf("English expiry %q", got)
	}
	if got := strings.TrimSpace(res.Doc.Find(`[data-testid="upload-sample"] tbody tr [data-testid="sample-active"]`).First().Text()); got != "active from 20 Jun 2026" {
		t.Errorf("English active day %q", got)
	}
}
