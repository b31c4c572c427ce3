package sheets

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"
)

// fuzzLimits are tight, so the fuzzer reaches them.
var fuzzLimits = Limits{MaxBytes: 1 << 20, MaxUnzipped: 8 << 20, MaxPartBytes: 4 << 20, MaxZipEntries: 64,
	MaxDepth: 32, MaxTagBytes: 64 << 10, MaxCellChars: 2000, MaxSharedStrings: 1000, MaxSharedChars: 100_000,
	MaxSheets: 16, MaxStyles: 1000, MaxRows: 2000, MaxCols: 300, MaxCells: 20_000, MaxMerges: 100,
	MaxRecords: 50_000, MaxLineBytes: 8 << 10, MaxFields: 300}

// fuzzRead opens data and reads every sheet, checking that nothing passes the bounds and
// that every failure is an *Error.
func fuzzRead(t *testing.T, data []byte) {
	b, err := openBytes(t, data, fuzzLimits)
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("open: not an *Error: %v", err)
		}
		return
	}
	defer b.Close()
	if len(b.Sheets) == 0 || len(b.Sheets) > fuzzLimits.MaxSheets {
		t.Fatalf("%d sheets", len(b.Sheets))
	}
	for _, s := range b.Sheets {
		rows, err := b.Rows(s.Index)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("rows: not an *Error: %v", err)
			}
			continue
		}
		last, cells := 0, 0
		for rows.Next() {
			r := rows.Row()
			if r.Number <= last || r.Number > fuzzLimits.MaxRows {
				t.Fatalf("row %d after %d", r.Number, last)
			}
			last = r.Number
			prev := -1
			for _, c := range r.Cells {
				cells++
				if c.Col <= prev || c.Col >= fuzzLimits.MaxCols || c.Row != r.Number || c.Kind == KindEmpty {
					t.Fatalf("cell %+v after column %d", c, prev)
				}
				prev = c.Col
				if utf8.RuneCountInString(c.Text) > fuzzLimits.MaxCellChars || utf8.RuneCountInString(c.Raw) > fuzzLimits.MaxCellChars {
					t.Fatalf("cell %s of %d characters", c.Ref(), len(c.Text))
				}
			}
		}
		if cells > int(fuzzLimits.MaxCells) || len(rows.Merged()) > fuzzLimits.MaxMerges {
			t.Fatalf("%d cells, %d merges", cells, len(rows.Merged()))
		}
		if err := rows.Err(); err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("rows: not an *Error: %v", err)
			}
		}
		rows.Close()
	}
}

func seed(f *testing.F, pattern string) {
	files, _ := filepath.Glob(filepath.Join("testdata", pattern))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
}

// FuzzReadXLS: any compound file is read within the bounds or refused, never a panic.
func FuzzReadXLS(f *testing.F) {
	seed(f, "*.xls")
	f.Add(xlsBytes([]xlsSheet{{name: "A", cells: [][2]any{xLabelSST(0, 0, 1), xNumber(1, 0, 16, 12360)}}}, []string{"NIS", "Siti ’Aminah’ " + string(make([]byte, 40))}, []string{"0000000"}, 0, false, 12))
	f.Add(xlsPassword())
	f.Fuzz(fuzzRead)
}

// FuzzReadODS: any zip is read within the bounds or refused, never a panic.
func FuzzReadODS(f *testing.F) {
	seed(f, "*.ods")
	f.Add(odsBytes(`<table:table table:name="A"><table:table-row table:number-rows-repeated="3"><table:table-cell office:value-type="float" office:value="1" table:number-columns-spanned="2"><text:p>1</text:p></table:table-cell></table:table-row></table:table>`))
	f.Fuzz(fuzzRead)
}

// FuzzReadCSV: any text is read within the bounds or refused, never a panic.
func FuzzReadCSV(f *testing.F) {
	seed(f, "*.csv")
	f.Add([]byte("sep=;\nNIS;\"a\"\"b\nc\";x\r\n\r\n1;2"))
	f.Add([]byte{0xFF, 0xFE, 'a', 0, ';', 0, 'b', 0})
	f.Fuzz(fuzzRead)
}
