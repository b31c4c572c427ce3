package uploads_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/uploads"
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
