package uploads

import (
	"context"
	"io"
	"iter"
	"strconv"
	"strings"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/sheets"
	"github.com/sekolah/portal/internal/store"
)

// errbookAuthor signs the notes the error workbook puts on wrong cells.
const errbookAuthor = "Portal"

// errbookMaxChars is the longest text the error workbook echoes in a cell; a longer one is
// cut there, with a note saying so. Every rule's limit is far below it (a component's
// notes, the longest, take 255 characters), so what is cut was wrong anyway; and 2,700
// cells of 32,000 characters, each echoed whole, took a portal from 127 to 271 MB.
const errbookMaxChars = 1_000

// WriteErrorWorkbook writes the rows of the sheet at path that have problems or warnings,
// to fix and upload again: the original headings and cells, formatted as the template
// formats them (dates as dates, amounts as numbers, NIS as text) with the template's checks
// (account codes as a drop-down, dates and amounts checked while typing); every wrong cell
// filled red (a warning's yellow) with a note saying what is wrong, in p's language; then
// the row the cells came from and all of its problems, each naming the cell where it is
// now and where it was in the upload ("Sel D2 (D11 di berkas yang diunggah)"). The data
// sheet keeps the template's name and the sheet's headings, so the fixed file can be
// uploaded as it is. The file is read through internal/sheets whatever its format, and
// both the sheet and the problems (by row, as the store yields them) are streamed.
func WriteErrorWorkbook(ctx context.Context, w io.Writer, path string, kind Kind, accounts []string, lim Limits,
	issues iter.Seq2[store.UploadIssue, error], p i18n.Printer) (err error) {
	defer recoverUnreadable(&err)
	s, err := openSheet(path, kind, lim)
	if err != nil {
		return err
	}
	defer s.close()
	l := s.layout
	next, stop := iter.Pull2(issues)
	defer stop()
	pending, perr, more := next()
	if perr != nil {
		return perr
	}

	out := excelize.NewFile(excelize.Options{TmpDir: lim.TempDir})
	defer out.Close()
	id, en := i18n.NewPrinter(i18n.Indonesian, nil), i18n.NewPrinter(i18n.English, nil)
	name := id.T("uploads.tpl.data_sheet." + string(kind))
	if err := out.SetSheetName("Sheet1", name); err != nil {
		return err
	}
	st, err := newErrbookStyles(out)
	if err != nil {
		return err
	}
	sw, err := out.NewStreamWriter(name)
	if err != nil {
		return err
	}
	width := len(l.Headers)
	fieldAt := make([]Field, width)
	for i := range fieldAt {
		fieldAt[i] = l.fieldAt(i)
	}
	for i := range width {
		w := 16.0
		for _, c := range columnsOf[kind] {
			if c.field == fieldAt[i] {
				w = c.width
			}
		}
		if err := sw.SetColWidth(i+1, i+1, w); err != nil {
			return err
		}
		// Rows typed below keep the column's format, as in the template.
		if err := sw.SetColStyle(i+1, i+1, st.col(fieldAt[i], markNone)); err != nil {
			return err
		}
	}
	if err := sw.SetColWidth(width+1, width+1, 11); err != nil {
		return err
	}
	if err := sw.SetColWidth(width+2, width+2, 70); err != nil {
		return err
	}
	if err := sw.SetPanes(&excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"}); err != nil {
		return err
	}
	header := make([]any, 0, width+2)
	for _, h := range l.Headers {
		header = append(header, excelize.Cell{StyleID: st.header, Value: h})
	}
	header = append(header, excelize.Cell{StyleID: st.header, Value: p.T("uploads.errbook.row")},
		excelize.Cell{StyleID: st.header, Value: p.T("uploads.errbook.column")})
	if err := sw.SetRow("A1", header); err != nil {
		return err
	}

	outRow := 1
	for more {
		ok, err := s.next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		var msgs []string
		notes := map[int][]string{} // by column: what is wrong with that cell
		marks := map[int]mark{}
		here := outRow + 1 // the row this one becomes, if it has problems
		for more && pending.Row <= s.row {
			if pending.Row == s.row {
				is := IssueOf(pending)
				at := is.Cell()
				if is.Col >= 0 {
					at = cellName(is.Col, here)
				}
				msgs = append(msgs, is.MessageAt(p, at))
				if is.Col >= 0 && is.Col < width {
					notes[is.Col] = append(notes[is.Col], is.Text(p))
					m := markBad
					if IsWarning(pending.Code) {
						m = markWarn
					}
					marks[is.Col] = max(marks[is.Col], m)
				}
			}
			if pending, perr, more = next(); perr != nil {
				return perr
			}
		}
		if len(msgs) == 0 {
			continue
		}
		if outRow%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		outRow++
		values := make([]any, width+2)
		for i := range width {
			c := s.cells[i]
			v := errbookValue(c, fieldAt[i], s.date1904)
			if text, ok := v.(string); ok {
				if cut, n, ok := cutText(text, errbookMaxChars); ok {
					v = cut
					notes[i] = append(notes[i], p.T("uploads.errbook.cut", errbookMaxChars, n))
				}
			}
			values[i] = excelize.Cell{StyleID: st.col(fieldAt[i], marks[i]), Value: v}
			if len(notes[i]) > 0 {
				cell := cellName(i, outRow)
				text := strings.Join(notes[i], "\n")
				if err := out.AddComment(name, excelize.Comment{Cell: cell, Author: errbookAuthor,
					Paragraph: []excelize.RichTextRun{{Text: text}}, Width: 300, Height: 90}); err != nil {
					return err
				}
			}
		}
		values[width] = s.row
		values[width+1] = excelize.Cell{StyleID: st.message, Value: strings.Join(msgs, "\n")}
		if err := sw.SetRow(cellName(0, outRow), values); err != nil {
			return err
		}
	}
	// The template's checks, over the rows written and as far down as the template's.
	last := strconv.Itoa(max(outRow, templateRows))
	for i := range width {
		if fieldAt[i] < 0 {
			continue
		}
		col := colName(i)
		if err := addCheck(out, name, col+"2:"+col+last, fieldAt[i], accounts, id, en); err != nil {
			return err
		}
	}
	if err := sw.Flush(); err != nil {
		return err
	}
	return out.Write(w)
}

// mark is how a cell of the error workbook is marked: not at all, as a warning (yellow),
// as wrong (red); a cell with both is wrong.
type mark int

const (
	markNone mark = iota
	markWarn
	markBad
)

// errbookStyles are the error workbook's cell styles: the template's formats, each also
// filled red for a wrong cell.
type errbookStyles struct {
	header, message                int
	text, amount, date, plain      int
	badText, badAmount, badDate    int
	badPlain                       int
	warnText, warnAmount, warnDate int
	warnPlain                      int
}

func newErrbookStyles(f *excelize.File) (errbookStyles, error) {
	var st errbookStyles
	dateFmt := "dd/mm/yyyy"
	// Excel's own "Bad" look: light red fill, dark red text.
	bad := excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"FFC7CE"}}
	badFont := &excelize.Font{Color: "9C0006"}
	// And its "Neutral" look for a warning: light yellow, dark yellow text.
	warn := excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"FFEB9C"}}
	warnFont := &excelize.Font{Color: "9C5700"}
	specs := []struct {
		dst   *int
		style *excelize.Style
	}{
		{&st.header, &excelize.Style{Font: &excelize.Font{Bold: true, Color: "FFFFFF"},
			Fill: excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"1D4F91"}}, Alignment: &excelize.Alignment{Vertical: "center"}}},
		{&st.message, &excelize.Style{Font: &excelize.Font{Color: "B42318"}, Alignment: &excelize.Alignment{WrapText: true, Vertical: "top"}}},
		{&st.text, &excelize.Style{NumFmt: 49}}, // "@": NIS keep their leading zeros
		{&st.amount, &excelize.Style{NumFmt: 3}},
		{&st.date, &excelize.Style{CustomNumFmt: &dateFmt}},
		{&st.plain, &excelize.Style{}},
		{&st.badText, &excelize.Style{NumFmt: 49, Fill: bad, Font: badFont}},
		{&st.badAmount, &excelize.Style{NumFmt: 3, Fill: bad, Font: badFont}},
		{&st.badDate, &excelize.Style{CustomNumFmt: &dateFmt, Fill: bad, Font: badFont}},
		{&st.badPlain, &excelize.Style{Fill: bad, Font: badFont}},
		{&st.warnText, &excelize.Style{NumFmt: 49, Fill: warn, Font: warnFont}},
		{&st.warnAmount, &excelize.Style{NumFmt: 3, Fill: warn, Font: warnFont}},
		{&st.warnDate, &excelize.Style{CustomNumFmt: &dateFmt, Fill: warn, Font: warnFont}},
		{&st.warnPlain, &excelize.Style{Fill: warn, Font: warnFont}},
	}
	for _, s := range specs {
		id, err := f.NewStyle(s.style)
		if err != nil {
			return st, err
		}
		*s.dst = id
	}
	return st, nil
}

// col is the style of a cell of field f, marked as m says.
func (st errbookStyles) col(f Field, m mark) int {
	pick := func(plain, warn, bad int) int {
		switch m {
		case markBad:
			return bad
		case markWarn:
			return warn
		}
		return plain
	}
	switch f {
	case FieldAmount, FieldPenalty:
		return pick(st.amount, st.warnAmount, st.badAmount)
	case FieldDue, FieldExpiry, FieldActive:
		return pick(st.date, st.warnDate, st.badDate)
	case -1:
		return pick(st.plain, st.warnPlain, st.badPlain)
	}
	return pick(st.text, st.warnText, st.badText)
}

// errbookValue writes a cell back as the person meant it: a date as a date, a number in
// an amount column as a number, a NIS and any other text as the text it shows (a NIS
// 12360 in format 0000000 as 0012360); a text date as a date, a text of digits in an
// amount column as a number.
func errbookValue(c sheets.Cell, f Field, date1904 bool) any {
	switch c.Kind {
	case sheets.KindEmpty:
		return nil
	case sheets.KindDate:
		if f == FieldDue || f == FieldExpiry || f == FieldActive || f < 0 {
			return time.Date(c.Time.Year(), c.Time.Month(), c.Time.Day(), 0, 0, 0, 0, time.UTC)
		}
	case sheets.KindNumber:
		switch f {
		case FieldAmount, FieldPenalty, -1:
			if c.Number == float64(int64(c.Number)) {
				return int64(c.Number)
			}
			return c.Number
		case FieldDue, FieldExpiry, FieldActive:
			if d, err := ParseDate(c.Raw, date1904); err == nil {
				return d
			}
		}
	case sheets.KindBool:
		return c.Number == 1
	}
	v := cellText(c)
	t := i18n.TrimSpace(v)
	switch f {
	case FieldDue, FieldExpiry, FieldActive:
		if d, err := ParseDate(t, date1904); err == nil {
			return d
		}
	case FieldAmount, FieldPenalty:
		if len(t) <= 18 && isDigits(t) { // 18 digits always fit an int64
			n, _ := strconv.ParseInt(t, 10, 64)
			return n
		}
	}
	if v == "" {
		return nil
	}
	return v
}

// isDigits reports a non-empty run of ASCII digits (strconv alone would also take a sign).
func isDigits(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }

// cutText is s cut to its first max characters, the characters s had and true, when s is
// longer than that.
func cutText(s string, max int) (string, int, bool) {
	if len(s) <= max {
		return s, 0, false
	}
	n, end := 0, len(s)
	for i := range s {
		if n == max {
			end = i
		}
		n++
	}
	if n <= max {
		return s, 0, false
	}
	return s[:end], n, true
}
