// Package celltext is what a spreadsheet makes of a text cell: one that starts like a
// formula (=, +, -, @, or a tab or carriage return hiding what follows) is read, or
// becomes once edited, a formula; "=HYPERLINK(…)" typed by a parent would be a link. A CSV
// has only its text, so the portal's CSV exports put an apostrophe before such a text;
// an .xlsx has a style flag for it, the quote prefix (Excel's own apostrophe, which it
// keeps out of the cell's text), so the portal's workbooks keep the text exactly as typed
// and mark the cell with QuotePrefix.
package celltext

import (
	"fmt"

	"github.com/xuri/excelize/v2"
)

// Formulaic reports whether a spreadsheet would read s as a formula, or the start of one.
func Formulaic(s string) bool {
	if s == "" {
		return false
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		return true
	}
	return false
}

// Quoted makes quote-prefixed copies of a workbook's cell styles, each once.
type Quoted struct {
	f    *excelize.File
	byID map[int]int
}

// NewQuoted is a Quoted for f.
func NewQuoted(f *excelize.File) *Quoted { return &Quoted{f: f, byID: map[int]int{}} }

// Style is the id of a style like base (0: the default) with the quote prefix: a cell of
// it shows, and keeps when edited, its text as it is. excelize's Style has no field for
// it (v2.11.0 keeps it only on the cell format record it writes), so the record of base
// is copied with the flag set.
func (q *Quoted) Style(base int) (int, error) {
	if id, ok := q.byID[base]; ok {
		return id, nil
	}
	if _, err := q.f.GetStyle(base); err != nil { // loads the styles; refuses an unknown id
		return 0, fmt.Errorf("celltext: style %d: %w", base, err)
	}
	xfs := q.f.Styles.CellXfs
	xf := xfs.Xf[base]
	yes := true
	xf.QuotePrefix = &yes
	xfs.Xf = append(xfs.Xf, xf)
	xfs.Count = len(xfs.Xf)
	id := len(xfs.Xf) - 1
	q.byID[base] = id
	return id, nil
}
