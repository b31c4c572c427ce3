package sheets

import (
	"errors"
	"path/filepath"
	"testing"
	"time"
)

// readAll reads every row of a sheet, the rows copied.
func readAll(t *testing.T, b *Book, sheet int) ([]Row, *Rows) {
	t.Helper()
	rows, err := b.Rows(sheet)
	if err != nil {
		t.Fatalf("sheet %d: %v", sheet, err)
	}
	var out []Row
	for rows.Next() {
		r := *rows.Row()
		r.Cells = append([]Cell(nil), r.Cells...)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("sheet %d: %v", sheet, err)
	}
	return out, rows
}

// cellAt finds a cell by its reference in rows read.
func cellAt(rows []Row, ref string) Cell {
	r, c, _ := parseRef(ref)
	for i := range rows {
		if rows[i].Number == r {
			return rows[i].Cell(c)
		}
	}
	return Cell{Row: r, Col: c}
}

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// wantCell is what a test expects of one cell.
type wantCell struct {
	ref     string
	kind    Kind
	text    string
	raw     string
	format  string
	date    time.Time
	formula bool
}

func checkCells(t *testing.T, name string, rows []Row, want []wantCell) {
	t.Helper()
	for _, w := range want {
		c := cellAt(rows, w.ref)
		if c.Kind != w.kind || c.Text != w.text || (w.raw != "" && c.Raw != w.raw) ||
			(w.format != "" && c.Format != w.format) || c.Formula != w.formula {
			t.Errorf("%s %s = %v %q raw %q format %q formula %v; want %v %q raw %q format %q formula %v",
				name, w.ref, c.Kind, c.Text, c.Raw, c.Format, c.Formula, w.kind, w.text, w.raw, w.format, w.formula)
		}
		if !w.date.IsZero() && !c.Time.Equal(w.date) {
			t.Errorf("%s %s: date %v, want %v", name, w.ref, c.Time, w.date)
		}
		if c.Ref() != w.ref {
			t.Errorf("%s: Ref %q, want %q", name, c.Ref(), w.ref)
		}
	}
}

// TestLibreOfficeBook reads the same workbook as LibreOffice saved it in each format: a
// hidden sheet of last year before the visible ones, a copied tab left active, a NIS with
// its zeros kept as text and one as a number in format 0000000 merged down over three
// rows, amounts as numbers and as text with thousands separators, dates as dates and as
// text, #N/A, a hidden row and column, a total row.
func TestLibreOfficeBook(t *testing.T) {
	t.Parallel()
	for _, file := range []string{"book.xlsx", "book.xls", "book.ods"} {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			b, err := OpenFile(filepath.Join("testdata", file), Limits{})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			wantFormat := map[string]Format{"book.xlsx": XLSX, "book.xls": XLS, "book.ods": ODS}[file]
			if b.Format != wantFormat {
				t.Errorf("format %v, want %v", b.Format, wantFormat)
			}
			want := []SheetInfo{
				{Index: 0, Name: "Arsip 2026", Visibility: Hidden},
				{Index: 1, Name: "Tagihan", Visibility: Visible},
				{Index: 2, Name: "Tagihan (2)", Visibility: Visible, Active: true},
			}
			if len(b.Sheets) != len(want) {
				t.Fatalf("sheets %+v", b.Sheets)
			}
			for i := range want {
				if b.Sheets[i] != want[i] {
					t.Errorf("sheet %d = %+v, want %+v", i, b.Sheets[i], want[i])
				}
			}
			if p := b.Preferred(); p != 2 {
				t.Errorf("Preferred = %d, want the active copied tab 2", p)
			}
			rows, _ := readAll(t, b, 1)
			checkCells(t, file+" Tagihan", rows, []wantCell{
				{ref: "A2", kind: KindText, text: "0012345", raw: "0012345", format: "@"},
				{ref: "D2", kind: KindNumber, text: "350,000", raw: "350000", format: "#,##0"},
				{ref: "E2", kind: KindDate, text: "10/08/2027", raw: "46609", format: "dd/mm/yyyy", date: day(2027, 8, 10)},
			})
			rows, rs := readAll(t, b, 2)
			checkCells(t, file+" Tagihan (2)", rows, []wantCell{
				{ref: "A1", kind: KindText, text: "NIS"},
				{ref: "A2", kind: KindNumber, text: "0012360", raw: "12360", format: "0000000"},
				{ref: "C2", kind: KindText, text: "café ’lunas’"},
				{ref: "E2", kind: KindNumber, text: "350,000", raw: "350000"},
				{ref: "F2", kind: KindDate, text: "10/02/2027", date: day(2027, 2, 10)},
				{ref: "A3", kind: KindEmpty},
				{ref: "E3", kind: KindText, text: "350.000", raw: "350.000"},
				{ref: "F3", kind: KindText, text: "10/08/2027"},
				{ref: "E4", kind: KindError, text: "#N/A", raw: "#N/A", formula: true},
				{ref: "A5", kind: KindText, text: "Jumlah"},
				{ref: "E5", kind: KindNumber, text: "350,000", raw: "350000", formula: true},
			})
			hidden := map[int]bool{}
			for _, r := range rows {
				hidden[r.Number] = r.Hidden
			}
			if !hidden[4] || hidden[3] || hidden[5] {
				t.Errorf("hidden rows %v, want only row 4", hidden)
			}
			if !rs.ColHidden(2) || rs.ColHidden(1) || rs.ColHidden(3) {
				t.Errorf("hidden columns: C %v, B %v, D %v; want only C", rs.ColHidden(2), rs.ColHidden(1), rs.ColHidden(3))
			}
			if g, ok := rs.MergedAt(4, 0); !ok || g.String() != "A2:A4" {
				t.Errorf("MergedAt(A4) = %v %v, want A2:A4", g, ok)
			}
			if _, ok := rs.MergedAt(5, 0); ok {
				t.Error("A5 is not merged")
			}
		})
	}
}

// TestTypedByLocale reads what a bursar typed (350.000, 10/08/2027, 0012345) as
// LibreOffice stored it on a computer set to English and to Indonesian: the same text
// becomes 350 or 350000, 8 October or 10 August, and the NIS loses its zeros. The reader
// must say what is stored (a number, a date, text) for the uploads to notice.
func TestTypedByLocale(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file string
		want []wantCell
	}{
		{"typed-en.xls", []wantCell{
			{ref: "A2", kind: KindNumber, text: "12345", raw: "12345", format: "General"},
			{ref: "D2", kind: KindNumber, text: "350", raw: "350"},
			{ref: "E2", kind: KindDate, text: "10/08/27", date: day(2027, 10, 8)},
			{ref: "D3", kind: KindText, text: "1.200.000"},
			{ref: "E3", kind: KindText, text: "25/07/2027"},
			{ref: "E4", kind: KindDate, text: "08/10/27", date: day(2027, 8, 10)},
		}},
		{"typed-en.ods", []wantCell{
			{ref: "A2", kind: KindNumber, text: "12345", raw: "12345"},
			{ref: "D2", kind: KindNumber, text: "350", raw: "350"},
			{ref: "E2", kind: KindDate, text: "10/08/27", date: day(2027, 10, 8)},
			{ref: "E3", kind: KindText, text: "25/07/2027"},
		}},
		{"typed-id.xls", []wantCell{
			{ref: "A2", kind: KindNumber, text: "12345"},
			{ref: "D2", kind: KindNumber, text: "350000", raw: "350000"},
			{ref: "D3", kind: KindNumber, text: "1200000"},
			{ref: "E2", kind: KindDate, date: day(2027, 8, 10), text: "08/10/27"},
			{ref: "E3", kind: KindDate, date: day(2027, 7, 25), text: "07/25/27"},
		}},
		{"typed-id.ods", []wantCell{
			{ref: "D2", kind: KindNumber, text: "350000"},
			{ref: "E2", kind: KindDate, date: day(2027, 8, 10), text: "08/10/27", format: "mm/dd/yy"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			b, err := OpenFile(filepath.Join("testdata", tt.file), Limits{})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			rows, _ := readAll(t, b, b.Preferred())
			checkCells(t, tt.file, rows, tt.want)
		})
	}
}

// TestDate1904 reads a date of a workbook on the 1904 date system.
func TestDate1904(t *testing.T) {
	t.Parallel()
	for _, file := range []string{"dates1904.xls", "dates1904.xlsx"} {
		b, err := OpenFile(filepath.Join("testdata", file), Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if !b.Date1904 {
			t.Errorf("%s: not on the 1904 system", file)
		}
		rows, _ := readAll(t, b, 0)
		checkCells(t, file, rows, []wantCell{{ref: "A2", kind: KindDate, text: "10/08/2027", raw: "45147", date: day(2027, 8, 10)}})
		b.Close()
	}
}

// TestLibreOfficeCSV reads the sheet as LibreOffice exports it: Windows-1252 with ';' and
// UTF-8 with a byte order mark and ','.
func TestLibreOfficeCSV(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file  string
		enc   string
		delim rune
	}{
		{"cp1252-semicolon.csv", "Windows-1252", ';'},
		{"utf8-bom-comma.csv", "UTF-8 BOM", ','},
	}
	for _, tt := range tests {
		b, err := OpenFile(filepath.Join("testdata", tt.file), Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if b.Format != CSV || b.Encoding != tt.enc || b.Delimiter != tt.delim {
			t.Errorf("%s: %v %q %q, want csv %q %q", tt.file, b.Format, b.Encoding, b.Delimiter, tt.enc, tt.delim)
		}
		rows, _ := readAll(t, b, 0)
		checkCells(t, tt.file, rows, []wantCell{
			{ref: "A1", kind: KindText, text: "NIS"},
			{ref: "A2", kind: KindText, text: "0012360"},
			{ref: "C2", kind: KindText, text: "café ’lunas’"},
			{ref: "E2", kind: KindText, text: "350,000"},
			{ref: "E3", kind: KindText, text: "350.000"},
			{ref: "F3", kind: KindText, text: "10/08/2027"},
			{ref: "E4", kind: KindText, text: "#N/A"},
			{ref: "A3", kind: KindEmpty},
		})
		b.Close()
	}
}

// TestRowsNeverGuess: asking for a sheet that is not there is a typed error.
func TestRowsNoSheet(t *testing.T) {
	t.Parallel()
	b, err := OpenFile(filepath.Join("testdata", "book.ods"), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	_, err = b.Rows(3)
	var e *Error
	if !errors.As(err, &e) || e.Reason != NoSheet {
		t.Errorf("Rows(3) = %v, want NoSheet", err)
	}
}
