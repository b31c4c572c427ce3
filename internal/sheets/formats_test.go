package sheets

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

func openBytes(t testing.TB, b []byte, lim Limits) (*Book, error) {
	t.Helper()
	return Open(bytes.NewReader(b), int64(len(b)), lim)
}

func mustOpen(t *testing.T, b []byte) *Book {
	t.Helper()
	bk, err := openBytes(t, b, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return bk
}

// TestXLSRecords reads a workbook built record by record: the SST split by a CONTINUE
// inside a string, RK and MULRK numbers, a formula's string, boolean and error results,
// a very hidden and a hidden sheet before the active visible one, the 1904 system.
func TestXLSRecords(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("Pembayaran ", 30) + "é"
	sst := []string{"NIS", "Nama", long, "Siti ’Aminah’"}
	rk := func(r, c, xf int, v uint32) [2]any { return xRec(recRK, cat(le16(r), le16(c), le16(xf), le32(int(v)))) }
	formula := func(r, c int, val []byte) [2]any {
		return xRec(recFormula, cat(le16(r), le16(c), le16(0), val, le16(0), le32(0), le16(0)))
	}
	special := func(kind, v byte) []byte { return []byte{kind, 0, v, 0, 0, 0, 0xFF, 0xFF} }
	data := []xlsSheet{
		{name: "Rahasia", state: 2, cells: [][2]any{xLabelSST(0, 0, 0)}},
		{name: "Lama", state: 1, cells: [][2]any{xLabelSST(0, 0, 0)}},
		{name: "Data", cells: [][2]any{
			xLabelSST(0, 0, 0), xLabelSST(0, 1, 1),
			xNumber(1, 0, 16, 12360), xLabelSST(1, 1, 3), xLabelSST(1, 2, 2),
			rk(2, 0, 0, 12346<<2|2),     // an integer RK
			rk(2, 1, 17, 35000000<<2|3), // 350000.00 in hundredths, format #,##0
			xRec(recMulRK, cat(le16(3), le16(0), le16(18), le32(45147<<2|2), le16(0), le32(7<<2|2), le16(2))),
			formula(4, 0, special(0, 0)), xRec(recString, xlsString("lunas")),
			formula(4, 1, special(1, 1)),
			formula(4, 2, special(2, 0x2A)),
			xRec(recBoolErr, cat(le16(4), le16(3), le16(0), []byte{0x07, 1})),
			xRec(recMerged, cat(le16(1), le16(1), le16(3), le16(0), le16(0))),
		}},
	}
	b := mustOpen(t, xlsBytes(data, sst, []string{"0000000", "#,##0", "dd/mm/yyyy"}, 2, true, 40))
	defer b.Close()
	if len(b.Sheets) != 3 || b.Sheets[0].Visibility != VeryHidden || b.Sheets[1].Visibility != Hidden ||
		!b.Sheets[2].Active || b.Preferred() != 2 || !b.Date1904 {
		t.Fatalf("sheets %+v 1904 %v", b.Sheets, b.Date1904)
	}
	rows, rs := readAll(t, b, 2)
	checkCells(t, "xls", rows, []wantCell{
		{ref: "A1", kind: KindText, text: "NIS"},
		{ref: "A2", kind: KindNumber, text: "0012360", raw: "12360", format: "0000000"},
		{ref: "B2", kind: KindText, text: "Siti ’Aminah’"},
		{ref: "C2", kind: KindText, text: long},
		{ref: "A3", kind: KindNumber, text: "12346", raw: "12346"},
		{ref: "B3", kind: KindNumber, text: "350,000", raw: "350000"},
		{ref: "A4", kind: KindDate, text: "10/08/2027", raw: "45147", date: day(2027, 8, 10)},
		{ref: "B4", kind: KindNumber, text: "7", raw: "7"},
		{ref: "A5", kind: KindText, text: "lunas", formula: true},
		{ref: "B5", kind: KindBool, text: "TRUE", raw: "TRUE", formula: true},
		{ref: "C5", kind: KindError, text: "#N/A", formula: true},
		{ref: "D5", kind: KindError, text: "#DIV/0!"},
	})
	if g, ok := rs.MergedAt(3, 0); !ok || g.String() != "A2:A4" {
		t.Errorf("merged %v", rs.Merged())
	}
}

// TestXLSXBuiltWithExcelize reads workbooks excelize writes: shared and inline strings,
// the 1904 system, hidden and very hidden sheets, the active sheet, merged cells, hidden
// rows and columns, number formats.
func TestXLSXBuiltWithExcelize(t *testing.T) {
	t.Parallel()
	f := excelize.NewFile()
	defer f.Close()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	d1904 := true
	must(f.SetWorkbookProps(&excelize.WorkbookPropsOptions{Date1904: &d1904}))
	must(f.SetSheetName("Sheet1", "Arsip"))
	_, err := f.NewSheet("Macro")
	must(err)
	_, err = f.NewSheet("Tagihan")
	must(err)
	idx, err := f.NewSheet("Tagihan (2)")
	must(err)
	f.SetActiveSheet(idx)
	must(f.SetSheetVisible("Arsip", false))
	must(f.SetSheetVisible("Macro", false, true))
	nis := "0000000"
	st, err := f.NewStyle(&excelize.Style{CustomNumFmt: &nis})
	must(err)
	dateFmt := "dd/mm/yyyy"
	ds, err := f.NewStyle(&excelize.Style{CustomNumFmt: &dateFmt})
	must(err)
	s := "Tagihan (2)"
	must(f.SetSheetRow(s, "A1", &[]any{"NIS", "Nama", "Jumlah", "Jatuh Tempo", "Lunas"}))
	must(f.SetCellInt(s, "A2", 12360))
	must(f.SetCellStyle(s, "A2", "A2", st))
	must(f.SetCellStr(s, "B2", "Budi"))
	must(f.SetCellFloat(s, "C2", 350000, -1, 64))
	must(f.SetCellFloat(s, "D2", 45147, -1, 64)) // 2027-08-10 on the 1904 system
	must(f.SetCellStyle(s, "D2", "D2", ds))
	must(f.SetCellBool(s, "E2", true))
	must(f.SetCellStr(s, "B3", "Budi"))
	must(f.MergeCell(s, "A2", "A3"))
	must(f.SetRowVisible(s, 3, false))
	must(f.SetColVisible(s, "B", false))
	var buf bytes.Buffer
	must(f.Write(&buf))
	b := mustOpen(t, buf.Bytes())
	defer b.Close()
	want := []SheetInfo{{0, "Arsip", Hidden, false}, {1, "Macro", VeryHidden, false}, {2, "Tagihan", Visible, false}, {3, "Tagihan (2)", Visible, true}}
	for i, w := range want {
		if i >= len(b.Sheets) || b.Sheets[i] != w {
			t.Fatalf("sheets %+v, want %+v", b.Sheets, want)
		}
	}
	if !b.Date1904 || b.Preferred() != 3 {
		t.Errorf("1904 %v preferred %d", b.Date1904, b.Preferred())
	}
	rows, rs := readAll(t, b, 3)
	checkCells(t, "xlsx", rows, []wantCell{
		{ref: "A2", kind: KindNumber, text: "0012360", raw: "12360", format: "0000000"},
		{ref: "B2", kind: KindText, text: "Budi"},
		{ref: "C2", kind: KindNumber, text: "350000"},
		{ref: "D2", kind: KindDate, text: "10/08/2027", date: day(2027, 8, 10)},
		{ref: "E2", kind: KindBool, text: "TRUE"},
	})
	if len(rows) != 3 || !rows[2].Hidden || rows[1].Hidden {
		t.Errorf("rows %+v", rows)
	}
	if !rs.ColHidden(1) || rs.ColHidden(0) {
		t.Error("column B is the hidden one")
	}
	if g, ok := rs.MergedAt(3, 0); !ok || g.String() != "A2:A3" {
		t.Errorf("merged %v", rs.Merged())
	}
}

// TestXLSXInlineAndEscapes reads inline strings, rich text with phonetic runs left out,
// _x000D_ escapes and t="d" dates.
func TestXLSXInlineAndEscapes(t *testing.T) {
	t.Parallel()
	b := mustOpen(t, xlsxBytes(`<row r="1"><c r="A1" t="inlineStr"><is><r><t>Nama</t></r><r><t xml:space="preserve"> Siswa</t></r><rPh><t>X</t></rPh></is></c>`+
		`<c r="B1" t="s"><v>0</v></c><c r="C1" t="d"><v>2027-08-10T00:00:00</v></c><c r="D1" s="0"/><c r="E1" t="str"><f>A1</f><v>Nama Siswa</v></c></row>`,
		[2]string{"xl/sharedStrings.xml", `<sst><si><t>baris_x000D_dua</t></si></sst>`}))
	defer b.Close()
	rows, _ := readAll(t, b, 0)
	checkCells(t, "inline", rows, []wantCell{
		{ref: "A1", kind: KindText, text: "Nama Siswa"},
		{ref: "B1", kind: KindText, text: "baris\rdua"},
		{ref: "C1", kind: KindNumber, raw: "46609", text: "46609"},
		{ref: "D1", kind: KindEmpty},
		{ref: "E1", kind: KindText, text: "Nama Siswa", formula: true},
	})
}

// TestODSRepeatsAndText reads repeated rows and cells (LibreOffice writes trailing empty
// ones a million times over: they must cost nothing), text spread over paragraphs,
// spaces and spans, comments left out, times and booleans.
func TestODSRepeatsAndText(t *testing.T) {
	t.Parallel()
	b := mustOpen(t, odsBytes(`<table:table table:name="A">`+
		`<table:table-row table:number-rows-repeated="2"><table:table-cell office:value-type="string" table:number-columns-repeated="2"><text:p>x</text:p></table:table-cell></table:table-row>`+
		`<table:table-row><table:table-cell office:value-type="string"><text:p>a<text:s text:c="2"/>b</text:p><text:p><text:span>c</text:span></text:p><office:annotation><text:p>catatan</text:p></office:annotation></table:table-cell>`+
		`<table:table-cell office:value-type="time" office:time-value="PT13H30M00S"><text:p>13:30</text:p></table:table-cell>`+
		`<table:table-cell office:value-type="boolean" office:boolean-value="true"><text:p>TRUE</text:p></table:table-cell>`+
		`<table:table-cell table:number-columns-repeated="16000"/></table:table-row>`+
		`<table:table-row table:number-rows-repeated="1048000"><table:table-cell table:number-columns-repeated="1024"/></table:table-row>`+
		`</table:table>`))
	defer b.Close()
	rows, _ := readAll(t, b, 0)
	if len(rows) != 3 || rows[0].Number != 1 || rows[1].Number != 2 || rows[2].Number != 3 || len(rows[1].Cells) != 2 {
		t.Fatalf("rows %+v", rows)
	}
	checkCells(t, "ods", rows, []wantCell{
		{ref: "B2", kind: KindText, text: "x"},
		{ref: "A3", kind: KindText, text: "a  b\nc"},
		{ref: "B3", kind: KindTime, text: "13:30", raw: "0.5625"},
		{ref: "C3", kind: KindBool, text: "TRUE", raw: "TRUE"},
	})
}

// TestCSV reads the shapes CSV comes in.
func TestCSV(t *testing.T) {
	t.Parallel()
	utf16le := func(s string) []byte {
		b := []byte{0xFF, 0xFE}
		for _, r := range s {
			b = binary.LittleEndian.AppendUint16(b, uint16(r))
		}
		return b
	}
	tests := []struct {
		name  string
		in    []byte
		enc   string
		delim rune
		want  [][]string // rows: "ref=text"
	}{
		{"semicolon UTF-8", []byte("NIS;Nama\n0012345;Budi, S.Pd\n"), "UTF-8", ';', [][]string{{"A1=NIS", "B1=Nama"}, {"A2=0012345", "B2=Budi, S.Pd"}}},
		{"comma with quotes", []byte("NIS,Jumlah\r\n0012345,\"350,000\"\r\n\"00\"\"1\",\"a\nb\"\r\n"), "UTF-8", ',', [][]string{{"A1=NIS", "B1=Jumlah"}, {"A2=0012345", "B2=350,000"}, {"A3=00\"1", "B3=a\nb"}}},
		{"excel sep line", []byte("sep=;\nNIS;Nama,Lengkap\n1;2\n"), "UTF-8", ';', [][]string{{"A1=NIS", "B1=Nama,Lengkap"}, {"A2=1", "B2=2"}}},
		{"blank lines keep row numbers", []byte("a,b\n\n,c\n"), "UTF-8", ',', [][]string{{"A1=a", "B1=b"}, {"B3=c"}}},
		{"windows-1252", []byte("Nama;Catatan\nJos\xe9;\x93lunas\x94\n"), "Windows-1252", ';', [][]string{{"A1=Nama", "B1=Catatan"}, {"A2=José", "B2=“lunas”"}}},
		{"tab utf-16", utf16le("NIS\tNama\r\n0012345\tBudi\r\n"), "UTF-16LE", '\t', [][]string{{"A1=NIS", "B1=Nama"}, {"A2=0012345", "B2=Budi"}}},
		{"bom", []byte("\xEF\xBB\xBFNIS,Nama\n1,2"), "UTF-8 BOM", ',', [][]string{{"A1=NIS", "B1=Nama"}, {"A2=1", "B2=2"}}},
		// The portal's exports keep a NIS's zeros for Excel as ="0012345", which a
		// spreadsheet shows as 0012345; a formula of anything else is left as it is.
		{"excel text", []byte("\xEF\xBB\xBFNIS;Nama\r\n\"=\"\"0012345\"\"\";Budi\r\n=\"007\";=SUM(A1)\r\n"), "UTF-8 BOM", ';',
			[][]string{{"A1=NIS", "B1=Nama"}, {"A2=0012345", "B2=Budi"}, {"A3=007", "B3==SUM(A1)"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := mustOpen(t, tt.in)
			defer b.Close()
			if b.Format != CSV || b.Encoding != tt.enc || b.Delimiter != tt.delim {
				t.Errorf("%v %q %q, want %q %q", b.Format, b.Encoding, b.Delimiter, tt.enc, tt.delim)
			}
			rows, _ := readAll(t, b, 0)
			var got [][]string
			for _, r := range rows {
				var cs []string
				for _, c := range r.Cells {
					cs = append(cs, c.Ref()+"="+c.Text)
				}
				got = append(got, cs)
			}
			if strings.Join(flat(got), "|") != strings.Join(flat(tt.want), "|") {
				t.Errorf("rows %q, want %q", got, tt.want)
			}
		})
	}
}

func flat(rows [][]string) []string {
	var out []string
	for _, r := range rows {
		out = append(out, strings.Join(r, ","), "/")
	}
	return out
}

// TestDetect says what a file is from its content, never its name.
func TestDetect(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		in     []byte
		reason Reason
		part   string
	}{
		{"empty", nil, NotSpreadsheet, ""},
		{"pdf", []byte("%PDF-1.7\n..."), OtherDocument, "pdf"},
		{"png", []byte("\x89PNG\r\n\x1a\n\x00\x00"), NotSpreadsheet, ""},
		{"binary", []byte("abc\x00\x01\x02"), NotSpreadsheet, ""},
		{"html saved as xls", []byte("<html><body><table><tr><td>NIS</td></tr></table></body></html>"), WebPage, ""},
		{"excel 2003 xml", []byte(`<?xml version="1.0"?><Workbook xmlns="urn:schemas-microsoft-com:office:spreadsheet">`), WebPage, ""},
		{"docx", zipBytes([2]string{"[Content_Types].xml", `<Types><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`}), OtherDocument, "docx"},
		{"xlsb", zipBytes([2]string{"[Content_Types].xml", `<Types><Override PartName="/xl/workbook.bin" ContentType="application/vnd.ms-excel.sheet.binary.macroEnabled.main"/></Types>`}), OtherDocument, "xlsb"},
		{"odt", zipBytes([2]string{"mimetype", "application/vnd.oasis.opendocument.text"}), OtherDocument, "odt"},
		{"plain zip", zipBytes([2]string{"a.txt", "x"}), NotSpreadsheet, ""},
		{"encrypted ods", zipBytes([2]string{"mimetype", odsMime}, [2]string{"META-INF/manifest.xml", `<manifest:manifest xmlns:manifest="m"><manifest:file-entry manifest:full-path="content.xml"><manifest:encryption-data/></manifest:file-entry></manifest:manifest>`}, [2]string{"content.xml", "x"}), Encrypted, ""},
		{"encrypted xlsx", oleFile("EncryptedPackage", []byte("x")), Encrypted, ""},
		{"word 97", oleFile("WordDocument", []byte("x")), OtherDocument, "doc"},
		{"excel 95", oleFile("Book", []byte("x")), OldVersion, ""},
		{"xls with a password", xlsPassword(), Encrypted, ""},
		{"truncated ole", oleMagic, Damaged, ""},
	}
	for _, tt := range tests {
		_, err := openBytes(t, tt.in, Limits{})
		var e *Error
		if !errors.As(err, &e) || e.Reason != tt.reason || e.Part != tt.part {
			t.Errorf("%s: %v, want %v %q", tt.name, err, tt.reason, tt.part)
		}
	}
}

// xlsPassword is a workbook stream whose globals say it is encrypted (FILEPASS).
func xlsPassword() []byte {
	var g biffWriter
	g.rec(recBOF, bofRec(5))
	g.rec(recFilePass, make([]byte, 54))
	g.rec(recEOF, nil)
	return oleFile("Workbook", g.Bytes())
}

// TestXLSColumnOrder reads a row block whose cells were written column by column (some
// writers do): the rows come out whole and in order.
func TestXLSColumnOrder(t *testing.T) {
	t.Parallel()
	var cells [][2]any
	for c := range 3 {
		for r := range 4 {
			cells = append(cells, xNumber(r, c, 0, float64(10*r+c)))
		}
	}
	cells = append(cells, xRec(recDBCell, le32(0)), xNumber(4, 0, 0, 40))
	b := mustOpen(t, xlsBytes([]xlsSheet{{name: "A", cells: cells}}, nil, nil, 0, false, 0))
	defer b.Close()
	rows, _ := readAll(t, b, 0)
	if len(rows) != 5 || len(rows[3].Cells) != 3 || rows[3].Cells[2].Raw != "32" || rows[4].Cells[0].Raw != "40" {
		t.Fatalf("rows %+v", rows)
	}
}

// TestCompoundFileThatPanicsMscfb: a compound file whose directory starts nowhere (FuzzReadXLS
// found mscfb indexing the entries it never read) is refused as damaged, and a panic
// inside mscfb while a stream is read is a Damaged error too, never a crash.
func TestCompoundFileThatPanicsMscfb(t *testing.T) {
	t.Parallel()
	crash, err := os.ReadFile("testdata/fuzz/FuzzReadXLS/4eccfc6bbaa461ae")
	if err != nil {
		t.Fatal(err)
	}
	s := string(crash)
	in, err := strconv.Unquote(strings.TrimSuffix(strings.TrimSpace(s[strings.Index(s, "[]byte(")+7:]), ")"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = openBytes(t, []byte(in), Limits{})
	var e *Error
	if !errors.As(err, &e) || e.Reason != Damaged {
		t.Fatalf("crash input: %v, want damaged", err)
	}
	// A stream mscfb cannot read (here: none at all) panics inside it.
	_, err = cfbStream{}.Read(make([]byte, 8))
	if !errors.As(err, &e) || e.Reason != Damaged || !strings.Contains(e.Error(), "mscfb") {
		t.Fatalf("read: %v, want damaged", err)
	}
	_, err = cfbStream{}.Seek(1, io.SeekStart)
	if !errors.As(err, &e) || e.Reason != Damaged {
		t.Fatalf("seek: %v, want damaged", err)
	}
}
