package uploads_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/uploads"
	"github.com/sekolah/portal/internal/uploads/sheettest"
	"github.com/sekolah/portal/internal/xmlscan"
)

// TestHostileWorkbooksRefused: workbooks whose reading would cost far more than they
// weigh are refused with a file problem that says what and why, as internal/sheets reads
// them: a cell over Excel's 32,767 characters (inline or shared, named by its cell), a
// shared-string bomb, a sheet over the unzipped bound, more cell formats than any
// workbook has (a large styles part alone is streamed, not held). A cell of exactly
// 32,767 characters, multi-byte ones included, is fine.
func TestHostileWorkbooksRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lim := uploads.DefaultLimits(20 << 20)
	small := uploads.DefaultLimits(20 << 20)
	small.UnzipSize, small.MaxSharedStrings = 8<<20, 10_000
	write := func(name string, fn func(path string) error) string {
		path := filepath.Join(dir, name)
		if err := fn(path); err != nil {
			t.Fatal(err)
		}
		return path
	}
	tests := []struct {
		name    string
		path    string
		lim     uploads.Limits
		code    string
		message string // in Indonesian
	}{
		{"inline cell one over", write("inline.xlsx", func(p string) error { return sheettest.HostileCell(p, uploads.MaxCellChars+1, false) }),
			lim, "cell_too_long", "Sel B2 di berkas ini berisi teks lebih panjang daripada yang diizinkan Excel (32.767 karakter per sel)"},
		{"inline cell of 16 MiB", write("inline16.xlsx", func(p string) error { return sheettest.HostileCell(p, 16<<20, false) }),
			lim, "cell_too_long", "Sel B2"},
		{"shared string one over", write("shared.xlsx", func(p string) error { return sheettest.HostileCell(p, uploads.MaxCellChars+1, true) }),
			lim, "cell_too_long", "Sel B2"},
		{"shared-string bomb", write("bomb.xlsx", func(p string) error { return sheettest.SharedStringBomb(p, 10_001) }),
			small, "too_many_strings", "lebih dari 10.000 teks berbeda"},
		{"huge sheet", write("sheet.xlsx", func(p string) error { return sheettest.HugeSheet(p, 9<<20) }),
			small, "too_big_unzipped", "lebih dari 8 MB setelah dibuka"},
		{"more cell formats than any workbook", write("styles.xlsx", func(p string) error { return sheettest.BigStyles(p, 70_000*62) }),
			lim, "too_many_styles", "lebih dari 65.536 format sel"},
		{"a large styles part is streamed", write("styles-ok.xlsx", func(p string) error { return sheettest.BigStyles(p, 2<<20) }),
			small, "", ""},
		{"deep sheet", write("deep.xlsx", func(p string) error { return sheettest.DeepSheet(p, 100_000) }),
			lim, "too_deep", "Bagian xl/worksheets/sheet1.xml di dalam berkas ini bersarang terlalu dalam (lebih dari 64 tingkat"},
		{"sheet nested to the bound", write("deep-ok.xlsx", func(p string) error { return sheettest.DeepSheet(p, xmlscan.MaxDepth-3) }),
			lim, "", ""},
		{"cell at the limit", write("limit.xlsx", func(p string) error { return sheettest.HostileCell(p, uploads.MaxCellChars, false) }),
			lim, "", ""},
		{"shared string at the limit", write("limit-shared.xlsx", func(p string) error { return sheettest.HostileCell(p, uploads.MaxCellChars, true) }),
			lim, "", ""},
		{"strings at the bound", write("bomb-ok.xlsx", func(p string) error { return sheettest.SharedStringBomb(p, 10_000) }),
			small, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := analyse(t, tt.path, uploads.Options{Kind: uploads.Components, Limits: tt.lim, Students: knownNIS{"2026001": true}})
			var fe *uploads.FileError
			if tt.code == "" {
				if errors.As(err, &fe) {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if !errors.As(err, &fe) || fe.Code != tt.code {
				t.Fatalf("err %v, want the file problem %s", err, tt.code)
			}
			msg := uploads.FileMessage(i18n.NewPrinter(i18n.Indonesian, nil), fe.Code, fe.Args)
			if !strings.Contains(msg, tt.message) {
				t.Errorf("message %q, want it to say %q", msg, tt.message)
			}
		})
	}
}

// TestDeepPartsRefused: every XML part a workbook is read through (the sheet, the shared
// strings, the styles, the workbook, its relationships, the content types) is refused when
// nested deeper than xmlscan.MaxDepth, named in the message in the person's language. The
// parts never read (a theme, the document's properties, drawings, custom XML) cost
// nothing, however deep: the file is read.
func TestDeepPartsRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lim := uploads.DefaultLimits(20 << 20)
	parts := []struct {
		name string
		read bool
	}{{"xl/sharedStrings.xml", true}, {"xl/styles.xml", true}, {"xl/workbook.xml", true}, {"xl/_rels/workbook.xml.rels", true},
		{"[Content_Types].xml", true}, {"xl/worksheets/sheet1.xml", true}, {"_rels/.rels", false}, {"xl/theme/theme1.xml", false},
		{"docProps/app.xml", false}, {"xl/drawings/vmlDrawing1.vml", false}, {"customXml/item1.bin", false}}
	for i, part := range parts {
		t.Run(part.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(dir, fmt.Sprintf("deep-%d.xlsx", i))
			if err := sheettest.DeepPart(path, part.name, 10_000); err != nil {
				t.Fatal(err)
			}
			_, _, err := analyse(t, path, uploads.Options{Kind: uploads.Components, Limits: lim, Students: knownNIS{}})
			var fe *uploads.FileError
			if !part.read {
				if errors.As(err, &fe) {
					t.Fatalf("a part never read refused the file: %v", err)
				}
				return
			}
			if !errors.As(err, &fe) || fe.Code != "too_deep" {
				t.Fatalf("err %v, want too_deep", err)
			}
			for _, tc := range []struct {
				lang i18n.Lang
				want string
			}{{i18n.Indonesian, "Bagian " + part.name + " di dalam berkas ini bersarang terlalu dalam"},
				{i18n.English, "The part " + part.name + " inside this file is nested too deep (more than 64 levels"}} {
				if msg := uploads.FileMessage(i18n.NewPrinter(tc.lang, nil), fe.Code, fe.Args); !strings.Contains(msg, tc.want) {
					t.Errorf("message %q, want it to say %q", msg, tc.want)
				}
			}
		})
	}
	t.Run("a picture", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(dir, "picture.xlsx")
		png := "\x89PNG\r\n\x1a\n" + strings.Repeat("<a>", 10_000)
		if err := sheettest.RawPart(path, "xl/media/image1.png", png); err != nil {
			t.Fatal(err)
		}
		if _, _, err := analyse(t, path, uploads.Options{Kind: uploads.Components, Limits: lim, Students: knownNIS{}}); err != nil {
			var fe *uploads.FileError
			if errors.As(err, &fe) {
				t.Fatalf("refused: %v", err)
			}
		}
	})
}
