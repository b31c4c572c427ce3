package uploads_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/uploads"
	"github.com/sekolah/portal/internal/uploads/sheettest"
)

// TestErrorWorkbookKeepsTheTemplate: a template filled in with one wrong cell comes back
// as an error workbook with the template's own checks (the same drop-down of account
// codes, the same whole-number and date checks over the same ranges), the template's
// number format in every column (on the row written and on the empty rows below, where
// the person types more), and only the wrong cell filled red with a note.
func TestErrorWorkbookKeepsTheTemplate(t *testing.T) {
	t.Parallel()
	due := time.Date(2026, 7, 10, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		kind uploads.Kind
		row  []any
		bad  string // the wrong cell, in the error workbook
	}{
		{uploads.Components, []any{"A1", "SPP Juli", "SPP", "seribu", 5000, due, due.AddDate(0, 1, 0)}, "D2"},
		{uploads.Students, []any{"20/24", "Budi Santoso", "Kelas 7A", "081234567890", "budi@example.com"}, "A2"},
	} {
		t.Run(string(tc.kind), func(t *testing.T) {
			t.Parallel()
			var tpl bytes.Buffer
			must(t, uploads.WriteTemplate(&tpl, tc.kind, accounts))
			template, err := excelize.OpenReader(bytes.NewReader(tpl.Bytes()))
			must(t, err)
			defer template.Close()
			sheet := template.GetSheetName(0)

			// The person fills the template's first row and uploads it.
			filled, err := excelize.OpenReader(bytes.NewReader(tpl.Bytes()))
			must(t, err)
			for i, v := range tc.row {
				cell, _ := excelize.CoordinatesToCellName(i+1, 2)
				must(t, filled.SetCellValue(sheet, cell, v))
			}
			path := filepath.Join(t.TempDir(), "filled.xlsx")
			must(t, filled.SaveAs(path))
			filled.Close()
			_, issues, err := analyse(t, path, uploads.Options{Kind: tc.kind, Students: knownNIS{"A1": true}})
			must(t, err)
			if len(issues) != 1 || issues[0].Cell() != tc.bad {
				t.Fatalf("issues %q, want one at %s", issueList(issues), tc.bad)
			}
			var out bytes.Buffer
			must(t, uploads.WriteErrorWorkbook(context.Background(), &out, path, tc.kind, accounts, uploads.DefaultLimits(1<<20),
				func(yield func(store.UploadIssue, error) bool) { yield(issues[0].Stored(), nil) }, i18n.NewPrinter(i18n.Indonesian, nil)))
			book, err := excelize.OpenReader(&out)
			must(t, err)
			defer book.Close()
			if got := book.GetSheetName(0); got != sheet {
				t.Fatalf("data sheet %q, the template's %q", got, sheet)
			}

			// The checks.
			describe := func(f *excelize.File) []string {
				dvs, err := f.GetDataValidations(sheet)
				must(t, err)
				var out []string
				for _, dv := range dvs {
					out = append(out, fmt.Sprintf("%s %s %s %s %s", dv.Sqref, dv.Type, dv.Operator, dv.Formula1, dv.Formula2))
				}
				return out
			}
			got, want := describe(book), describe(template)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("checks:\n got %q\nwant %q (the template's)", got, want)
			}

			// The formats, and the fill of the wrong cell only.
			format := func(f *excelize.File, cell string) (string, string) {
				id, err := f.GetCellStyle(sheet, cell)
				must(t, err)
				st, err := f.GetStyle(id)
				must(t, err)
				numFmt := fmt.Sprint(st.NumFmt)
				if st.CustomNumFmt != nil {
					numFmt = *st.CustomNumFmt
				}
				fill := ""
				if len(st.Fill.Color) > 0 {
					fill = st.Fill.Color[0]
				}
				return numFmt, fill
			}
			header, _ := template.GetRows(sheet)
			for col := range header[0] {
				for _, row := range []int{2, 40} {
					cell, _ := excelize.CoordinatesToCellName(col+1, row)
					tplCell, _ := excelize.CoordinatesToCellName(col+1, 2)
					wantFmt, _ := format(template, tplCell)
					gotFmt, fill := format(book, cell)
					if gotFmt != wantFmt {
						t.Errorf("%s (%s) is formatted %q, the template's %q", cell, header[0][col], gotFmt, wantFmt)
					}
					if wantFill := map[bool]string{true: "FFC7CE"}[cell == tc.bad]; fill != wantFill {
						t.Errorf("%s is filled %q, want %q", cell, fill, wantFill)
					}
				}
			}
			comments, err := book.GetComments(sheet)
			must(t, err)
			if len(comments) != 1 || comments[0].Cell != tc.bad {
				t.Errorf("notes %+v, want one on %s", comments, tc.bad)
			}
		})
	}
}

// TestErrorWorkbookCutsLongTexts: a cell of 32,000 characters comes back in the error
// workbook cut to its first 1,000, filled red, with a note saying it was cut and how long
// it was; a quoted value (a NIS) is quoted in its message at most 80 characters long. A
// cell of ordinary length is echoed whole. A rule's number reads as one once stored.
func TestErrorWorkbookCutsLongTexts(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "long.xlsx")
	must(t, sheettest.LongCells(path, 2, 32_000))
	_, issues, err := analyse(t, path, uploads.Options{Kind: uploads.Components, Accounts: accounts, Students: knownNIS{"20260001": true}})
	must(t, err)
	for _, is := range issues {
		if len(is.Value) > 80+len("…") {
			t.Errorf("%s quotes %d bytes of the cell", is.Cell(), len(is.Value))
		}
	}
	var out bytes.Buffer
	must(t, uploads.WriteErrorWorkbook(context.Background(), &out, path, uploads.Components, accounts, uploads.DefaultLimits(1<<20),
		func(yield func(store.UploadIssue, error) bool) {
			for _, is := range issues {
				if !yield(is.Stored(), nil) {
					return
				}
			}
		}, i18n.NewPrinter(i18n.English, nil)))
	book, err := excelize.OpenReader(&out)
	must(t, err)
	defer book.Close()
	sheet := book.GetSheetName(0)
	rows, err := book.GetRows(sheet)
	must(t, err)
	if len(rows) != 3 {
		t.Fatalf("%d rows, want the header and two", len(rows))
	}
	comments, err := book.GetComments(sheet)
	must(t, err)
	notes := map[string]string{}
	for _, c := range comments {
		for _, r := range c.Paragraph {
			notes[c.Cell] += r.Text
		}
	}
	for _, tc := range []struct{ cell, ok string }{{"A2", "B2"}, {"B3", "A3"}} {
		v, err := book.GetCellValue(sheet, tc.cell)
		must(t, err)
		if n := utf8.RuneCountInString(v); n != 1_000 || v[0] != "A"[0]+byte(tc.cell[1]-'2') {
			t.Errorf("%s echoes %d characters starting %q, want its first 1,000", tc.cell, n, v[:1])
		}
		if want := "cut to its first 1.000 characters (it had 32.000)"; !strings.Contains(notes[tc.cell], want) {
			t.Errorf("%s's note %q, want it to say %q", tc.cell, notes[tc.cell], want)
		}
		if other, _ := book.GetCellValue(sheet, tc.ok); len(other) > 20 || other == "" {
			t.Errorf("%s echoes %q, want its short text whole", tc.ok, other)
		}
		if strings.Contains(notes[tc.ok], "cut") {
			t.Errorf("%s's note %q says it was cut", tc.ok, notes[tc.ok])
		}
	}
	// A rule's whole number survives the database: "at most 100 characters", not "%!d(string=100)".
	if want := "Too long: at most 100 characters."; !strings.Contains(notes["B3"], want) {
		t.Errorf("B3's note %q, want it to say %q", notes["B3"], want)
	}
	for _, col := range []string{"K2", "K3"} {
		if msg, _ := book.GetCellValue(sheet, col); utf8.RuneCountInString(msg) > 400 {
			t.Errorf("%s, the row's problems, is %d characters long", col, utf8.RuneCountInString(msg))
		}
	}
}
