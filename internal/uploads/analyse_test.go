package uploads_test

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"errors"
	"hash/crc32"
	"io"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/uploads"
)

// knownNIS is a StudentChecker over a fixed set, for tests of the checks themselves.
type knownNIS map[string]bool

func (k knownNIS) KnownStudents(_ context.Context, nis []string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, n := range nis {
		out[n] = k[n]
	}
	return out, nil
}

// existing is a ComponentFinder over fixed keys (NIS|name|YYYY-MM-DD), names compared
// the way the service's are: case and spacing aside.
type existing map[string]bool

func (e existing) FindComponents(_ context.Context, keys []uploads.Key) ([]bool, error) {
	fold := func(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }
	set := map[string]bool{}
	for k := range e {
		parts := strings.Split(k, "|")
		set[parts[0]+"|"+fold(parts[1])+"|"+parts[2]] = true
	}
	out := make([]bool, len(keys))
	for i, k := range keys {
		out[i] = set[k.NIS+"|"+fold(k.Name)+"|"+k.Due.Format(time.DateOnly)]
	}
	return out, nil
}

// writeSheet writes rows (the first is the header) to a new workbook's sheet; a time.Time
// becomes a date cell.
func writeSheet(t *testing.T, sheet string, rows [][]any, extra ...func(f *excelize.File)) string {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	if err := f.SetSheetName("Sheet1", sheet); err != nil {
		t.Fatal(err)
	}
	date, _ := f.NewStyle(&excelize.Style{NumFmt: 14})
	for i, r := range rows {
		for j, v := range r {
			cell, _ := excelize.CoordinatesToCellName(j+1, i+1)
			if v == nil {
				continue
			}
			if err := f.SetCellValue(sheet, cell, v); err != nil {
				t.Fatal(err)
			}
			if _, ok := v.(time.Time); ok {
				_ = f.SetCellStyle(sheet, cell, cell, date)
			}
		}
	}
	for _, fn := range extra {
		fn(f)
	}
	path := filepath.Join(t.TempDir(), "sheet.xlsx")
	if err := f.SaveAs(path); err != nil {
		t.Fatal(err)
	}
	return path
}

func analyse(t *testing.T, path string, o uploads.Options) (uploads.Summary, []uploads.Issue, error) {
	t.Helper()
	if o.Accounts == nil {
		o.Accounts = accounts
	}
	if o.Limits == (uploads.Limits{}) {
		o.Limits = uploads.DefaultLimits(20 << 20)
	}
	var issues []uploads.Issue
	sum, err := uploads.Analyse(context.Background(), path, o, func(is uploads.Issue) error {
		issues = append(issues, is)
		return nil
	})
	uploads.SortIssues(issues)
	return sum, issues, err
}

// cellFill is the colour a cell of the workbook is filled with ("" for none).
func cellFill(t *testing.T, f *excelize.File, sheet, cell string) string {
	t.Helper()
	id, err := f.GetCellStyle(sheet, cell)
	if err != nil {
		t.Fatal(err)
	}
	st, err := f.GetStyle(id)
	if err != nil || len(st.Fill.Color) == 0 {
		return ""
	}
	return st.Fill.Color[0]
}

// storedIssues yields issues as the store keeps them, for the error workbook.
func storedIssues(issues []uploads.Issue) iter.Seq2[store.UploadIssue, error] {
	return func(yield func(store.UploadIssue, error) bool) {
		for _, is := range issues {
			if !yield(is.Stored(), nil) {
				return
			}
		}
	}
}

func issueList(issues []uploads.Issue) []string {
	var out []string
	for _, is := range issues {
		out = append(out, is.Cell()+" "+strings.TrimPrefix(is.Problem.Key, "uploads.err."))
	}
	return out
}

func TestAnalyseComponentsEveryProblem(t *testing.T) {
	t.Parallel()
	d := func(y int, m time.Month, day int) time.Time { return time.Date(y, m, day, 0, 0, 0, 0, time.UTC) }
	// Columns in another order than the template, with aliases and an extra column.
	header := []any{"Keterangan", "Nama Siswa", "No. Induk", "Komponen", "Kode Akun", "Jumlah (Rp)", "denda", "Tgl Jatuh Tempo", "KADALUARSA", "Tanggal Aktif"}
	row := func(notes, nis, name, code string, amount, penalty, due, expiry, active any) []any {
		return []any{notes, "Ahmad", nis, name, code, amount, penalty, due, expiry, active}
	}
	long := strings.Repeat("x", 501)
	rows := [][]any{header,
		row("", "A1", "SPP Juli", "SPP", "Rp 1.250.000", "25.000", "10/12/2026", "2026-12-31", "1 Des 2026"), // 2 valid, typed text
		row("", "A2", "SPP Juli", "BCA", int64(350000), nil, d(2026, 7, 10), d(2026, 7, 31), nil),            // 3 valid, cells
		row("", "", "SPP Juli", "SPP", 1000, nil, d(2026, 7, 10), d(2026, 7, 31), nil),                       // 4 NIS missing
		row("", "A 1", "SPP Juli", "SPP", 1000, nil, d(2026, 7, 10), d(2026, 7, 31), nil),                    // 5 NIS format
		row("", "A1", "", "SPP", 1000, nil, d(2026, 7, 10), d(2026, 7, 31), nil),                             // 6 name missing
		row("", "A1", "SPP Agustus", "XYZ", 1000, nil, d(2026, 8, 10), d(2026, 8, 31), nil),                  // 7 account
		row("", "A1", "SPP September", "mandiri", "1.000", nil, d(2026, 9, 10), d(2026, 9, 30), nil),         // 8 valid, code any case
		row("", "A1", "X1", "SPP", "abc", nil, d(2026, 7, 10), d(2026, 7, 31), nil),                          // 9 amount
		row("", "A1", "X2", "SPP", "1.250,50", nil, d(2026, 7, 10), d(2026, 7, 31), nil),                     // 10 fraction
		row("", "A1", "X3", "SPP", 0, nil, d(2026, 7, 10), d(2026, 7, 31), nil),                              // 11 zero
		row("", "A1", "X4", "SPP", "-5000", nil, d(2026, 7, 10), d(2026, 7, 31), nil),                        // 12 negative
		row("", "A1", "X5", "SPP", 1000, "-1", d(2026, 7, 10), d(2026, 7, 31), nil),                          // 13 penalty
		row("", "A1", "X6", "SPP", 1000, nil, "31/02/2026", d(2026, 7, 31), nil),                             // 14 no such day
		row("", "A1", "X7", "SPP", 1000, nil, "10/12/1999", d(2026, 7, 31), nil),                             // 15 year
		row("", "A1", "X8", "SPP", 1000, nil, d(2026, 8, 10), d(2026, 7, 31), nil),                           // 16 due > expiry
		row("", "A1", "X9", "SPP", 1000, nil, d(2026, 7, 10), d(2026, 7, 31), d(2026, 7, 11)),                // 17 active > due
		row(long, "A1", "X10", "SPP", 1000, nil, d(2026, 7, 10), d(2026, 7, 31), nil),                        // 18 notes long
		row("", "B9", "X11", "SPP", 1000, nil, d(2026, 7, 10), d(2026, 7, 31), nil),                          // 19 unknown NIS
		row("", "A1", "spp   JULI", "SPP", 1000, nil, d(2026, 12, 10), d(2026, 12, 31), nil),                 // 20 same as row 2
		{nil, nil, nil}, // 21 blank
		row("", "A1", "X12", "SPP", "1E+13", nil, d(2026, 7, 10), d(2026, 7, 31), nil), // 22 too large
		row("", "A1", "X13", "SPP", 1000, nil, d(2026, 7, 10), nil, nil),               // 23 expiry missing
		row("", "", "", "", "x", "y", "z", "w", "v"),                                   // 24 everything
	}
	path := writeSheet(t, "Tagihan", rows)
	sum, issues, err := analyse(t, path, uploads.Options{Kind: uploads.Components, Students: knownNIS{"A1": true, "A2": true}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"C4 required", "C5 students.err.nis", "D6 required", "E7 components.err.account", "F9 amount_invalid", "F10 amount_fraction",
		"F11 form.positive", "F12 form.positive", "G13 form.not_negative", "H14 date_invalid", "H15 date_range",
		"H16 components.err.due_after_expiry", "J17 components.err.active_after_due", "A18 form.too_long", "C19 nis_unknown", "D20 duplicate_row",
		"F22 amount_too_large", "I23 required",
		"C24 required", "D24 required", "E24 required", "F24 amount_invalid", "G24 amount_invalid", "H24 date_invalid",
		"I24 date_invalid", "J24 date_invalid",
	}
	if got := issueList(issues); !slices.Equal(got, want) {
		t.Errorf("issues:\n got %q\nwant %q", got, want)
	}
	if sum.Rows != 22 || sum.New != 3 || sum.Errors != 19 || sum.Already != 0 || sum.Issues != len(want) {
		t.Errorf("summary %+v", sum)
	}
	wantTotals := []uploads.Total{{AccountCode: "SPP", Rows: 1, Amount: 1_250_000}, {AccountCode: "BCA", Rows: 1, Amount: 350_000}, {AccountCode: "MANDIRI", Rows: 1, Amount: 1000}}
	if !slices.Equal(sum.Totals, wantTotals) {
		t.Errorf("totals %+v", sum.Totals)
	}

	// Every message names its cell and reads in both languages, dates in each one's way.
	for _, lang := range []i18n.Lang{i18n.Indonesian, i18n.English} {
		p := i18n.NewPrinter(lang, nil)
		for _, is := range issues {
			msg := is.Message(p)
			if !strings.Contains(msg, is.Cell()+":") || strings.Contains(msg, ".err.") || strings.Contains(msg, "form.") || strings.Contains(msg, "%!") || strings.Contains(msg, "\x01") {
				t.Errorf("%s message %q", lang, msg)
			}
		}
	}
	p := i18n.NewPrinter(i18n.Indonesian, nil)
	for _, is := range issues {
		if is.Problem.Key == "components.err.due_after_expiry" {
			if msg := is.Message(p); msg != "Sel H16: Jatuh tempo 10 Agu 2026 jatuh setelah tanggal kedaluwarsa 31 Jul 2026." {
				t.Errorf("date message = %q", msg)
			}
			// Stored and read back, the days are still days.
			if msg := uploads.IssueOf(is.Stored()).Message(p); msg != is.Message(p) {
				t.Errorf("stored date message = %q", msg)
			}
		}
		if is.Problem.Key == "uploads.err.duplicate_row" && is.Problem.Args[0] != "2" {
			t.Errorf("duplicate points at row %v, want 2", is.Problem.Args[0])
		}
	}

	// The rows already at the service are recognised; what is left is new.
	sum, _, err = analyse(t, path, uploads.Options{Kind: uploads.Components, Students: knownNIS{"A1": true, "A2": true},
		Existing: existing{"A1|SPP Juli|2026-12-10": true, "A2|SPP Juli|2026-07-10": true}})
	if err != nil || sum.Already != 2 || sum.New != 1 || len(sum.Totals) != 1 || sum.Totals[0].AccountCode != "MANDIRI" {
		t.Fatalf("with existing rows: %+v, %v", sum, err)
	}

	// ReadComponents gives the valid rows as the billing service wants them.
	var got []uploads.Component
	err = uploads.ReadComponents(context.Background(), path, uploads.Options{Accounts: accounts, Limits: uploads.DefaultLimits(20 << 20)},
		func(int) bool { return false }, func(c uploads.Component) error { got = append(got, c); return nil })
	if err != nil {
		t.Fatal(err)
	}
	wantFirst := uploads.Component{Row: 2, NIS: "A1", AccountCode: "SPP", Name: "SPP Juli", Due: d(2026, 12, 10), Expiry: d(2026, 12, 31),
		Active: d(2026, 12, 1), Amount: 1_250_000, Penalty: 25_000}
	if len(got) != 5 || got[0] != wantFirst || got[2].AccountCode != "MANDIRI" || got[2].Row != 8 {
		t.Fatalf("read components: %+v", got)
	}
}

func TestAnalyseHeaders(t *testing.T) {
	t.Parallel()
	d := time.Date(2026, 7, 10, 0, 0, 0, 0, time.UTC)
	ok := []any{"A1", "SPP", "SPP", 1000, d, d}
	tests := []struct {
		name   string
		sheets map[string][][]any
		code   string
		args   []string
		rows   int
	}{
		{"aliases in any case and spacing", map[string][][]any{"Data": {{" nis ", "NAMA TAGIHAN", "kode_rekening", "Nominal (Rp)", "Jatuh  Tempo", "Kadaluwarsa"}, ok}}, "", nil, 1},
		{"title rows above the header", map[string][][]any{"Sheet": {{"Tagihan SPP Juli 2026"}, {}, {"NIS", "Nama Tagihan", "Kode Rekening", "Nominal", "Jatuh Tempo", "Kedaluwarsa"}, ok}}, "", nil, 1},
		{"instructions sheet first", map[string][][]any{"Petunjuk": {{"baca ini"}}, "Tagihan": {{"NIS", "Nama Tagihan", "Kode Rekening", "Nominal", "Jatuh Tempo", "Kedaluwarsa"}, ok}}, "", nil, 1},
		{"missing columns named at once", map[string][][]any{"Tagihan": {{"NIS", "Nominal", "Catatan"}, {"A1", 1000}}}, "missing_columns", []string{"Nama Tagihan, Kode Rekening, Jatuh Tempo, Kedaluwarsa", "1"}, 0},
		{"one field twice", map[string][][]any{"Tagihan": {{"NIS", "Nama Tagihan", "Kode Rekening", "Nominal", "Jumlah", "Jatuh Tempo", "Kedaluwarsa"}}}, "duplicate_column", []string{"Jumlah", "D1", "E1"}, 0},
		{"empty sheet", map[string][][]any{"Tagihan": {}}, "empty", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := excelize.NewFile()
			first := true
			names := make([]string, 0, len(tt.sheets))
			for n := range tt.sheets {
				names = append(names, n)
			}
			slices.Sort(names) // "Petunjuk" before "Tagihan", as a person would have it
			for _, n := range names {
				if first {
					_ = f.SetSheetName("Sheet1", n)
					first = false
				} else {
					_, _ = f.NewSheet(n)
				}
				for i, r := range tt.sheets[n] {
					cell, _ := excelize.CoordinatesToCellName(1, i+1)
					rr := r
					_ = f.SetSheetRow(n, cell, &rr)
				}
			}
			path := filepath.Join(t.TempDir(), "h.xlsx")
			if err := f.SaveAs(path); err != nil {
				t.Fatal(err)
			}
			f.Close()
			sum, issues, err := analyse(t, path, uploads.Options{Kind: uploads.Components, Students: knownNIS{"A1": true}})
			var fe *uploads.FileError
			switch {
			case tt.code == "" && err != nil:
				t.Fatalf("err %v", err)
			case tt.code == "" && (sum.Rows != tt.rows || sum.New != tt.rows):
				t.Fatalf("summary %+v, issues %q", sum, issueList(issues))
			case tt.code != "" && (!errors.As(err, &fe) || fe.Code != tt.code || !slices.Equal(fe.Args, tt.args)):
				t.Fatalf("err %v, want %s %q", err, tt.code, tt.args)
			}
		})
	}
}

func TestAnalyseStudents(t *testing.T) {
	t.Parallel()
	rows := [][]any{
		{"NIS", "Nama", "Kelas", "No HP", "E-mail"},
		{"S1", "Ahmad Pratama", "Kelas 7A", "0812-3456-7890", "ortu@example.com"},
		{"S2", "Siti", "Kelas 7A", "+62 812 345 678", ""},
		{"S3", "Budi", "", "12ab", "budi@"},
		{"S1", "Ahmad lagi", "", "", ""},
		{"OLD", "Sudah Terdaftar", "", "", ""},
		{"S4", "", "", "", ""},
	}
	path := writeSheet(t, "Siswa", rows)
	sum, issues, err := analyse(t, path, uploads.Options{Kind: uploads.Students, Students: knownNIS{"OLD": true}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"D4 students.err.phone", "E4 form.invalid_email", "A5 duplicate_nis", "B7 required"}
	if got := issueList(issues); !slices.Equal(got, want) {
		t.Errorf("issues %q, want %q", got, want)
	}
	if sum.Rows != 6 || sum.New != 2 || sum.Already != 1 || sum.Errors != 3 {
		t.Errorf("summary %+v", sum)
	}
	var got []uploads.Student
	err = uploads.ReadStudents(context.Background(), path, uploads.Options{Limits: uploads.DefaultLimits(1 << 20)},
		func(row int) bool { return row == 6 }, func(s uploads.Student) error { got = append(got, s); return nil })
	if err != nil || len(got) != 3 || got[0].Phone != "081234567890" || got[1].Phone != "+62812345678" || got[0].Class != "Kelas 7A" || got[2].Name != "Ahmad lagi" {
		t.Fatalf("read students %+v, %v", got, err)
	}
}

// TestOpenRefusesZipBombs: a workbook whose parts unzip past the limit is refused before
// it is inflated, whether it says so in its directory or lies about it.
func TestOpenRefusesZipBombs(t *testing.T) {
	t.Parallel()
	lim := uploads.Limits{UnzipSize: 1 << 20, MaxRows: 100}
	dir := t.TempDir()
	write := func(name string, build func(zw *zip.Writer)) string {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		// A workbook whose one sheet is the part under test.
		for _, part := range [][2]string{
			{"[Content_Types].xml", `<Types><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/></Types>`},
			{"xl/workbook.xml", `<workbook xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Tagihan" sheetId="1" r:id="rId1"/></sheets></workbook>`},
			{"xl/_rels/workbook.xml.rels", `<Relationships><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`},
		} {
			w, _ := zw.Create(part[0])
			_, _ = w.Write([]byte(part[1]))
		}
		build(zw)
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, buf.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	deflated := func(size int) ([]byte, uint32) {
		var c bytes.Buffer
		fw, _ := zipDeflater(&c)
		data := bytes.Repeat([]byte(" "), size)
		_, _ = fw.Write(data)
		_ = fw.Close()
		return c.Bytes(), crc32.ChecksumIEEE(data)
	}
	honest := write("honest.xlsx", func(zw *zip.Writer) {
		w, _ := zw.CreateHeader(&zip.FileHeader{Name: "xl/worksheets/sheet1.xml", Method: zip.Deflate})
		_, _ = w.Write(bytes.Repeat([]byte(" "), 4<<20))
	})
	// Declares 10 GB: refused on the declaration alone, nothing is inflated.
	declared := write("declared.xlsx", func(zw *zip.Writer) {
		body, crc := deflated(1 << 10)
		w, _ := zw.CreateRaw(&zip.FileHeader{Name: "xl/worksheets/sheet1.xml", Method: zip.Deflate,
			CompressedSize64: uint64(len(body)), UncompressedSize64: 10 << 30, CRC32: crc})
		_, _ = w.Write(body)
	})
	// Declares 1 KB but inflates to 8 MB: the zip reader stops at the declared size.
	lying := write("lying.xlsx", func(zw *zip.Writer) {
		body, crc := deflated(8 << 20)
		w, _ := zw.CreateRaw(&zip.FileHeader{Name: "xl/worksheets/sheet1.xml", Method: zip.Deflate,
			CompressedSize64: uint64(len(body)), UncompressedSize64: 1 << 10, CRC32: crc})
		_, _ = w.Write(body)
	})
	for name, tc := range map[string]struct {
		path string
		code string
	}{"honest": {honest, "too_big_unzipped"}, "declared": {declared, "too_big_unzipped"}, "lying": {lying, ""}} {
		_, _, err := analyse(t, tc.path, uploads.Options{Kind: uploads.Components, Limits: lim, Students: knownNIS{}})
		var fe *uploads.FileError
		if !errors.As(err, &fe) || (tc.code != "" && fe.Code != tc.code) {
			t.Errorf("%s: err %v, want a file problem %s", name, err, tc.code)
			continue
		}
		msg := uploads.FileMessage(i18n.NewPrinter(i18n.Indonesian, nil), fe.Code, fe.Args)
		if strings.Contains(msg, "uploads.") {
			t.Errorf("%s: message %q", name, msg)
		}
	}
}

func TestErrorWorkbookRoundTrip(t *testing.T) {
	t.Parallel()
	d := time.Date(2026, 7, 10, 0, 0, 0, 0, time.UTC)
	path := writeSheet(t, "Tagihan", [][]any{
		{"NIS", "Nama Tagihan", "Kode Rekening", "Nominal", "Jatuh Tempo", "Kedaluwarsa", "Catatan"},
		{"A1", "SPP Juli", "SPP", 1000, d, d.AddDate(0, 0, 20), "baik"},
		{"A1", "SPP Agustus", "SPP", "seribu", d.AddDate(0, 1, 0), d.AddDate(0, 1, 20), "nominal salah"},
		{"A1", "SPP September", "KOPERASI", 1000, "10 Sep 2026", "31/09/2026", "dua salah"},
	})
	sum, issues, err := analyse(t, path, uploads.Options{Kind: uploads.Components, Students: knownNIS{"A1": true}})
	if err != nil || sum.Errors != 2 {
		t.Fatalf("%+v %v", sum, err)
	}
	var buf bytes.Buffer
	if err := uploads.WriteErrorWorkbook(context.Background(), &buf, path, uploads.Components, accounts, uploads.DefaultLimits(1<<20),
		storedIssues(issues), i18n.NewPrinter(i18n.Indonesian, nil)); err != nil {
		t.Fatal(err)
	}
	book := filepath.Join(t.TempDir(), "errors.xlsx")
	if err := os.WriteFile(book, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenFile(book)
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := f.GetRows("Tagihan")
	if len(rows) != 3 || rows[0][7] != "Baris asal" || rows[0][8] != "Kesalahan" || rows[1][7] != "3" || rows[2][7] != "4" {
		t.Fatalf("error workbook: %q", rows)
	}
	// The wrong cells are filled red and carry a note saying what is wrong; the others not.
	for cell, want := range map[string]string{"D2": "FFC7CE", "C3": "FFC7CE", "F3": "FFC7CE", "A2": "", "D3": "", "E2": ""} {
		if got := cellFill(t, f, "Tagihan", cell); got != want {
			t.Errorf("fill of %s = %q, want %q", cell, got, want)
		}
	}
	comments, err := f.GetComments("Tagihan")
	if err != nil {
		t.Fatal(err)
	}
	notes := map[string]string{}
	for _, c := range comments {
		var text strings.Builder
		for _, p := range c.Paragraph {
			text.WriteString(p.Text)
		}
		notes[c.Cell] = c.Text + text.String()
	}
	if len(notes) != 3 || !strings.Contains(notes["D2"], `"seribu"`) || !strings.Contains(notes["C3"], "KOPERASI") || notes["F3"] == "" {
		t.Errorf("notes on the wrong cells: %q", notes)
	}
	// The template's formats and drop-downs: dates as dd/mm/yyyy, amounts as #,##0, the
	// account codes as a list.
	numFmt := func(cell string) (int, string) {
		id, _ := f.GetCellStyle("Tagihan", cell)
		st, _ := f.GetStyle(id)
		if st.CustomNumFmt != nil {
			return st.NumFmt, *st.CustomNumFmt
		}
		return st.NumFmt, ""
	}
	if _, custom := numFmt("E2"); custom != "dd/mm/yyyy" {
		t.Errorf("due day E2 format %q", custom)
	}
	if n, _ := numFmt("D3"); n != 3 {
		t.Errorf("amount D3 format %d", n)
	}
	if n, _ := numFmt("A2"); n != 49 {
		t.Errorf("NIS A2 format %d, want text", n)
	}
	dvs, err := f.GetDataValidations("Tagihan")
	if err != nil {
		t.Fatal(err)
	}
	lists := ""
	for _, dv := range dvs {
		if dv.Type == "list" {
			lists += dv.Sqref + " " + dv.Formula1
		}
	}
	if !strings.Contains(lists, "C2:C") || !strings.Contains(lists, "SPP,BCA,MANDIRI") {
		t.Errorf("account drop-down: %q (%d checks)", lists, len(dvs))
	}
	f.Close()
	// Each message names the cell where it is now, and where it was in the upload.
	if !strings.Contains(rows[1][8], "Sel D2 (D3 di berkas yang diunggah):") || !strings.Contains(rows[2][8], "Sel C3 (C4 di berkas yang diunggah):") ||
		!strings.Contains(rows[2][8], "\nSel F3 (F4 di berkas yang diunggah):") {
		t.Fatalf("messages: %q / %q", rows[1][8], rows[2][8])
	}
	// Fixed in place, the same file goes back in: the extra columns are ignored, the dates
	// are still dates.
	_, again, err := analyse(t, book, uploads.Options{Kind: uploads.Components, Students: knownNIS{"A1": true}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := issueList(again), []string{"D2 amount_invalid", "C3 components.err.account", "F3 date_invalid"}; !slices.Equal(got, want) {
		t.Fatalf("re-read error workbook: %q, want %q", got, want)
	}
}

func TestTemplatesReadBack(t *testing.T) {
	t.Parallel()
	for _, kind := range uploads.Kinds() {
		var buf bytes.Buffer
		if err := uploads.WriteTemplate(&buf, kind, accounts); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), string(kind)+".xlsx")
		if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		sum, issues, err := analyse(t, path, uploads.Options{Kind: kind, Students: knownNIS{}})
		if err != nil || sum.Rows != 0 || len(issues) != 0 {
			t.Errorf("%s template read back: %+v, %q, %v", kind, sum, issueList(issues), err)
		}
	}
}

func TestMessagesExist(t *testing.T) {
	t.Parallel()
	for _, lang := range []i18n.Lang{i18n.Indonesian, i18n.English} {
		p := i18n.NewPrinter(lang, nil)
		check := func(key string) {
			if !i18n.Has(key) {
				t.Errorf("no message %s", key)
			}
		}
		for _, c := range uploads.IssueCodes {
			check("uploads.err." + c)
		}
		for _, c := range uploads.FileCodes {
			check("uploads.file." + c)
		}
		for _, c := range uploads.FailCodes {
			check("uploads.fail." + c)
		}
		for _, s := range []string{uploads.StateHeld, uploads.StateAnalysing, uploads.StateInvalid, uploads.StateReady, uploads.StateQueued,
			uploads.StateChecking, uploads.StateSending, uploads.StateDone, uploads.StatePartial, uploads.StateFailed, uploads.StateDiscarded} {
			check("uploads.state." + s)
		}
		if msg := uploads.FailureMessage(p, store.UploadFailure{Row: 7, Code: uploads.FailRejected, Arg: "due_date: required"}); !strings.Contains(msg, "7") || !strings.Contains(msg, "due_date: required") {
			t.Errorf("failure message %q", msg)
		}
	}
}

func zipDeflater(w io.Writer) (io.WriteCloser, error) { return flate.NewWriter(w, flate.BestSpeed) }

func i18nPrinter() i18n.Printer { return i18n.NewPrinter(i18n.Indonesian, nil) }
