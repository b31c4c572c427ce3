package sheets

import (
	"bytes"
	"errors"
	"runtime"
	"strings"
	"testing"
)

// readErr opens a file and reads its preferred sheet to the end: the first error.
func readErr(t testing.TB, b []byte, lim Limits) error {
	t.Helper()
	bk, err := openBytes(t, b, lim)
	if err != nil {
		return err
	}
	defer bk.Close()
	i := bk.Preferred()
	if i < 0 {
		i = 0
	}
	rows, err := bk.Rows(i)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
	}
	return rows.Err()
}

// deep is n nested elements and their closings.
func deep(n int) string {
	return strings.Repeat("<x>", n) + strings.Repeat("</x>", n)
}

// TestBounds: every bound refuses what passes it with a typed error naming the bound,
// the part and the cell where it can.
func TestBounds(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", ExcelMaxCellChars+1)
	tests := []struct {
		name  string
		file  []byte
		lim   Limits
		bound Bound
		part  string
		cell  string
	}{
		{"xlsx nested a million deep (issue 30)", xlsxBytes(`<row r="2">` + deep(1_000_000) + `</row>`), Limits{}, BoundDepth, "xl/worksheets/sheet1.xml", ""},
		{"ods nested deep", odsBytes(`<table:table table:name="A">` + deep(100_000) + `</table:table>`), Limits{}, BoundDepth, "content.xml", ""},
		{"xlsx shared strings nested deep", xlsxBytes(`<row r="1"><c r="A1" t="s"><v>0</v></c></row>`, [2]string{"xl/sharedStrings.xml", "<sst><si>" + deep(10_000) + "</si></sst>"}), Limits{}, BoundDepth, "xl/sharedStrings.xml", ""},
		{"xlsx cell over 32,767 characters", xlsxBytes(`<row r="7"><c r="B7" t="inlineStr"><is><t>` + long + `</t></is></c></row>`), Limits{}, BoundCellChars, "xl/worksheets/sheet1.xml", "B7"},
		{"xlsx cell of many short runs", xlsxBytes(`<row r="3"><c r="C3" t="inlineStr"><is>` + strings.Repeat("<r><t>"+strings.Repeat("a", 30_000)+"</t></r>", 6) + `</is></c></row>`), Limits{}, BoundCellChars, "xl/worksheets/sheet1.xml", "C3"},
		{"xlsx long shared string used", xlsxBytes(`<row r="4"><c r="D4" t="s"><v>0</v></c></row>`, [2]string{"xl/sharedStrings.xml", "<sst><si>" + strings.Repeat("<r><t>"+strings.Repeat("a", 30_000)+"</t></r>", 3) + "</si></sst>"}), Limits{}, BoundCellChars, "Data", "D4"},
		{"xlsx shared string of one long run, used", xlsxBytes(`<row r="4"><c r="D4" t="s"><v>0</v></c></row>`, [2]string{"xl/sharedStrings.xml", "<sst><si><t>" + strings.Repeat("a", 3_000_000) + "</t></si></sst>"}), Limits{}, BoundCellChars, "Data", "D4"},
		{"xlsx too many shared strings", xlsxBytes(`<row r="1"><c r="A1" t="s"><v>0</v></c></row>`, [2]string{"xl/sharedStrings.xml", "<sst>" + strings.Repeat("<si><t>a</t></si>", 11) + "</sst>"}), Limits{MaxSharedStrings: 10}, BoundSharedStrings, "xl/sharedStrings.xml", ""},
		{"xlsx column past XFD", xlsxBytes(`<row r="1"><c r="XFE1"><v>1</v></c></row>`), Limits{}, BoundCols, "xl/worksheets/sheet1.xml", "XFE1"},
		{"xlsx too many rows", xlsxBytes(`<row r="1"><c r="A1"><v>1</v></c></row><row r="6"><c r="A6"><v>1</v></c></row>`), Limits{MaxRows: 5}, BoundRows, "Data", ""},
		{"xlsx too many cells", xlsxBytes(`<row r="1">` + strings.Repeat(`<c><v>1</v></c>`, 11) + `</row>`), Limits{MaxCells: 10}, BoundCells, "Data", ""},
		{"xlsx too many merges", xlsxBytes(`</sheetData><mergeCells><mergeCell ref="A1:A2"/><mergeCell ref="B1:B2"/></mergeCells><sheetData>`), Limits{MaxMerges: 1}, BoundMerges, "xl/worksheets/sheet1.xml", ""},
		{"xlsx tag over 1 MiB", xlsxBytes(`<row r="1" x="` + strings.Repeat("a", 1<<20) + `"/>`), Limits{}, BoundTagBytes, "xl/worksheets/sheet1.xml", ""},
		{"xlsx part over its bound", xlsxBytes(`<row r="1">` + strings.Repeat(" ", 2<<20) + `</row>`), Limits{MaxPartBytes: 1 << 20}, BoundPartBytes, "xl/worksheets/sheet1.xml", ""},
		{"xlsx parts over the unzip bound", xlsxBytes(`<row r="1">` + strings.Repeat(" ", 2<<20) + `</row>`), Limits{MaxUnzipped: 1 << 20}, BoundUnzipped, "xl/worksheets/sheet1.xml", ""},
		{"zip of many entries", zipBytes(manyParts(30)...), Limits{MaxZipEntries: 20}, BoundZipEntries, "", ""},
		{"file over the upload limit", bytes.Repeat([]byte("a,b\n"), 300), Limits{MaxBytes: 1000}, BoundBytes, "", ""},
		{"ods row repeated past the rows", odsBytes(`<table:table table:name="A"><table:table-row table:number-rows-repeated="1048576"><table:table-cell office:value-type="string"><text:p>x</text:p></table:table-cell></table:table-row></table:table>`), Limits{MaxRows: 1000}, BoundRows, "A", ""},
		{"ods cell repeated past the columns", odsBytes(`<table:table table:name="A"><table:table-row><table:table-cell office:value-type="string" table:number-columns-repeated="20000"><text:p>x</text:p></table:table-cell></table:table-row></table:table>`), Limits{}, BoundCols, "content.xml", "XFE1"},
		{"ods long text", odsBytes(`<table:table table:name="A"><table:table-row><table:table-cell office:value-type="string"><text:p>` + long + `</text:p></table:table-cell></table:table-row></table:table>`), Limits{}, BoundCellChars, "content.xml", "A1"},
		{"xls records", xlsBytes([]xlsSheet{{name: "A", cells: manyNumbers(50)}}, nil, nil, 0, false, 0), Limits{MaxRecords: 30}, BoundRecords, "Workbook", ""},
		{"xls shared strings declared", xlsHugeSST(), Limits{}, BoundSharedStrings, "Workbook", ""},
		{"xls row past the rows", xlsBytes([]xlsSheet{{name: "A", cells: [][2]any{xNumber(60000, 0, 0, 1)}}}, nil, nil, 0, false, 0), Limits{MaxRows: 1000}, BoundRows, "Workbook", ""},
		{"csv line", []byte("a,b\n" + strings.Repeat("x", 2000) + "\n"), Limits{MaxLineBytes: 1000}, BoundLineBytes, "line 2", ""},
		{"csv fields", []byte(strings.Repeat("a,", 30) + "\n"), Limits{MaxFields: 20}, BoundFields, "line 1", ""},
		{"csv cell", []byte("a,\"" + long + "\"\n"), Limits{}, BoundCellChars, "line 1", "B1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := readErr(t, tt.file, tt.lim)
			var e *Error
			if !errors.As(err, &e) || e.Reason != TooBig || e.Bound != tt.bound || e.Part != tt.part || e.Cell != tt.cell {
				t.Fatalf("got %v; want %v in %q at %q", err, tt.bound, tt.part, tt.cell)
			}
			if e.Limit <= 0 {
				t.Errorf("no limit in %v", e)
			}
		})
	}
}

func manyParts(n int) [][2]string {
	var p [][2]string
	for i := range n {
		p = append(p, [2]string{"p" + itoa(i), "x"})
	}
	return p
}

func itoa(i int) string { return CellRef(i+1, 0)[1:] }

func manyNumbers(n int) [][2]any {
	var c [][2]any
	for i := range n {
		c = append(c, xNumber(i, 0, 0, float64(i)))
	}
	return c
}

// xlsHugeSST declares two billion shared strings in a few bytes.
func xlsHugeSST() []byte {
	var g biffWriter
	g.rec(recBOF, bofRec(5))
	g.rec(recSST, cat(le32(0x7FFFFFFF), le32(0x7FFFFFFF)))
	g.rec(recEOF, nil)
	return oleFile("Workbook", g.Bytes())
}

// TestDamaged: files that break their format's rules are refused as such.
func TestDamaged(t *testing.T) {
	t.Parallel()
	ole := oleFile("Workbook", xlsBytes(nil, nil, nil, 0, false, 0))
	lying := append([]byte(nil), xlsBytes([]xlsSheet{{name: "A"}}, nil, nil, 0, false, 0)...)
	copy(lying[44:], le32(0x7FFFFFFF)) // FAT sectors the file does not hold
	tests := []struct {
		name string
		file []byte
	}{
		{"doctype", xlsxBytes(`<!DOCTYPE x [<!ENTITY a "aaaa">]><row r="1"/>`)},
		{"xml syntax", xlsxBytes(`<row r="1"><c r="A1"><v>1</c></row>`)},
		{"shared string index", xlsxBytes(`<row r="1"><c r="A1" t="s"><v>5</v></c></row>`)},
		{"rows out of order", xlsxBytes(`<row r="5"><c r="A5"><v>1</v></c></row><row r="2"><c r="A2"><v>1</v></c></row>`)},
		{"cell of another row", xlsxBytes(`<row r="1"><c r="A2"><v>1</v></c></row>`)},
		{"ole inside ole", ole},
		{"ole header counts", lying},
		{"xls label index", xlsBytes([]xlsSheet{{name: "A", cells: [][2]any{xLabelSST(0, 0, 3)}}}, []string{"a"}, nil, 0, false, 0)},
		{"xls cells out of order", xlsBytes([]xlsSheet{{name: "A", cells: append(manyNumbers(flushAt+10), xNumber(0, 1, 0, 1))}}, nil, nil, 0, false, 0)},
	}
	for _, tt := range tests {
		err := readErr(t, tt.file, Limits{})
		var e *Error
		if !errors.As(err, &e) || (e.Reason != Damaged && e.Reason != NotSpreadsheet) {
			t.Errorf("%s: %v, want Damaged", tt.name, err)
		}
	}
}

// TestDeepSheetCostsNothing is issue 30's high finding: a sheet nested millions deep is
// refused as soon as it passes the bound, having cost next to no memory.
func TestDeepSheetCostsNothing(t *testing.T) {
	file := xlsxBytes(`<row r="2">` + deep(6_000_000) + `</row>`)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	err := readErr(t, file, Limits{})
	runtime.ReadMemStats(&after)
	var e *Error
	if !errors.As(err, &e) || e.Bound != BoundDepth {
		t.Fatalf("got %v, want the depth bound", err)
	}
	if grew := int64(after.TotalAlloc - before.TotalAlloc); grew > 16<<20 {
		t.Errorf("reading allocated %d MB before refusing", grew>>20)
	}
}
