package uploads

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sekolah/portal/internal/uploads/sheettest"
	"github.com/sekolah/portal/internal/xmlscan"
)

// TestXMLGuard: the scanner counts characters (not bytes; an entity is one), sees through
// comments, CDATA, processing instructions and quoted '>' without losing its place,
// names the cell of a text too long, and counts rows and shared strings.
func TestXMLGuard(t *testing.T) {
	t.Parallel()
	const max = MaxCellChars
	cell := func(text string) string {
		return `<worksheet><sheetData><row r="7"><c r="B7" t="inlineStr"><is><t>` + text + `</t></is></c></row></sheetData></worksheet>`
	}
	tests := []struct {
		name  string
		sheet bool
		xml   string
		code  string
		args  string
	}{
		{"at the limit", true, cell(strings.Repeat("a", max)), "", ""},
		{"one over", true, cell(strings.Repeat("a", max+1)), "cell_too_long", "B7"},
		{"multi-byte at the limit", true, cell(strings.Repeat("é", max)), "", ""},
		{"emoji at the limit", true, cell(strings.Repeat("🙂", max)), "", ""},
		{"entities count once", true, cell(strings.Repeat("&amp;", max)), "", ""},
		{"entities one over", true, cell(strings.Repeat("&#x41;", max+1)), "cell_too_long", "B7"},
		{"runs of one cell add up", true, `<row><c r="C3" t="inlineStr"><is><r><t>` + strings.Repeat("a", max) + `</t></r><r><t>b</t></r></is></c></row>`, "cell_too_long", "C3"},
		{"prefixed elements", true, `<x:row><x:c r="D4" t="inlineStr"><x:is><x:t>` + strings.Repeat("a", max+1) + `</x:t></x:is></x:c></x:row>`, "cell_too_long", "D4"},
		{"quoted > in an attribute", true, `<row><c r="E5" x="a>b" t="inlineStr"><is><t>` + strings.Repeat("a", max+1) + `</t></is></c></row>`, "cell_too_long", "E5"},
		{"self-closing cells end", true, `<row><c r="A1"/><c r="B1" s="2"/></row>` + strings.Repeat("a", 10), "", ""},
		{"text outside a cell", true, `<worksheet>` + strings.Repeat(" ", max+1) + `</worksheet>`, "text_too_long", ""},
		{"comment with tags inside", true, `<!-- <c r="Z9"> -->` + cell("ok"), "", ""},
		{"CDATA counted", true, `<row><c r="F6" t="inlineStr"><is><t><![CDATA[` + strings.Repeat("<", max+1) + `]]></t></is></c></row>`, "cell_too_long", "F6"},
		{"CDATA of tags is not tags", true, `<row><c r="G1" t="inlineStr"><is><t><![CDATA[` + strings.Repeat("<x>", 10) + `]]></t></is></c></row>`, "", ""},
		{"huge tag", true, `<row ` + strings.Repeat("a", xmlscan.MaxTagBytes) + `>`, "unreadable", ""},
		{"huge comment", true, `<!--` + strings.Repeat("<>", xmlscan.MaxTagBytes/2) + `-->`, "unreadable", ""},
		{"huge directive", true, `<!DOCTYPE x [` + strings.Repeat("<!ENTITY a 'b'>", xmlscan.MaxTagBytes/15+1) + `]>`, "unreadable", ""},
		{"nested at the bound", true, `<worksheet><sheetData>` + strings.Repeat("<x>", xmlscan.MaxDepth-2) + strings.Repeat("</x>", xmlscan.MaxDepth-2) + `</sheetData></worksheet>`, "", ""},
		{"nested one too deep", true, `<worksheet><sheetData>` + strings.Repeat("<x>", xmlscan.MaxDepth-1), "too_deep", "xl/worksheets/sheet1.xml"},
		{"siblings are not depth", true, `<worksheet><sheetData>` + strings.Repeat(`<row r="1"><c r="A1"><is><t>1</t></is></c></row>`, 10) + strings.Repeat(`<y><z/></y>`, 3*xmlscan.MaxDepth) + `</sheetData></worksheet>`, "", ""},
		{"empty elements are not depth", true, `<worksheet>` + strings.Repeat("<x/>", 3*xmlscan.MaxDepth) + `</worksheet>`, "", ""},
		{"rows over the limit", true, strings.Repeat(`<row r="1"/>`, 11), "too_many_rows", "10"},
		{"strings over the limit", false, `<sst>` + strings.Repeat(`<si><t>x</t></si>`, 6) + `</sst>`, "too_many_strings", "5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := &xmlGuard{sheet: tt.sheet, sst: !tt.sheet, maxRows: 10, maxItems: 5, part: "xl/worksheets/sheet1.xml"}
			// Fed in small pieces: the state must carry across reads.
			var err error
			for b := []byte(tt.xml); len(b) > 0 && err == nil; {
				n := min(len(b), 7)
				err = g.feed(b[:n])
				b = b[n:]
			}
			var fe *FileError
			if tt.code == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if !errors.As(err, &fe) || fe.Code != tt.code {
				t.Fatalf("err %v, want %s", err, tt.code)
			}
			if tt.args != "" && (len(fe.Args) == 0 || fe.Args[0] != tt.args) {
				t.Errorf("args %q, want %q first", fe.Args, tt.args)
			}
		})
	}
}

// TestXMLGuardSharedStrings: a shared string over the limit is noted by its index (for the
// cell that uses it to be named), not refused on the spot; the count goes on.
func TestXMLGuardSharedStrings(t *testing.T) {
	t.Parallel()
	g := &xmlGuard{sst: true, maxItems: 10}
	xml := `<sst><si><t>a</t></si><si><r><t>` + strings.Repeat("b", MaxCellChars) + `</t></r><r><t>c</t></r></si><si/><si><t>d</t></si></sst>`
	if err := g.feed([]byte(xml)); err != nil {
		t.Fatal(err)
	}
	if g.items != 4 || len(g.bigItems) != 1 || !g.bigItems[1] {
		t.Fatalf("items %d, big %v", g.items, g.bigItems)
	}
	s := &xmlGuard{sheet: true, bigItems: g.bigItems}
	err := s.feed([]byte(`<row><c r="A1" t="s"><v>0</v></c><c r="H12" t="s"><v>1</v></c></row>`))
	var fe *FileError
	if !errors.As(err, &fe) || fe.Code != "cell_too_long" || fe.Args[0] != "H12" {
		t.Fatalf("err %v, want cell H12 named", err)
	}
}

func FuzzXMLGuard(f *testing.F) {
	f.Add([]byte(`<row><c r="A1" t="s"><v>0</v></c></row>`), true)
	f.Add([]byte(`<sst><si><t>x</t></si><![CDATA[<<]]><!-- -- --><?pi?></sst>`), false)
	f.Fuzz(func(t *testing.T, data []byte, sheet bool) {
		g := &xmlGuard{sheet: sheet, sst: !sheet, maxItems: 3, maxRows: 3, bigItems: map[int]bool{1: true}}
		_ = g.feed(data)
	})
}

// BenchmarkGuardWorkbook is what the guard adds to every reading of a sheet: the scan of
// the 100,000-row sheet BenchmarkSheetRead reads (compare its ns/op with theirs).
func BenchmarkGuardWorkbook(b *testing.B) {
	path := filepath.Join(b.TempDir(), "components.xlsx")
	if _, err := sheettest.Components(path, sheettest.Options{Rows: 100_000, Students: 8_334}); err != nil {
		b.Fatal(err)
	}
	lim := DefaultLimits(20 << 20)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := guardWorkbook(path, lim); err != nil {
			b.Fatal(err)
		}
	}
}
