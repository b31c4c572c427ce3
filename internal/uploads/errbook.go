package uploads

import (
	"context"
	"io"
	"iter"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/store"
)

// WriteErrorWorkbook writes the rows of the sheet at path that have problems: the original
// header and cells (dates as dates, amounts as numbers where they could be read), then the
// row they came from and what is wrong, in p's language. The data sheet keeps the
// template's name and headers, so the fixed file can be uploaded as it is. Both the sheet
// and the problems (by row, as the store yields them) are streamed.
func WriteErrorWorkbook(ctx context.Context, w io.Writer, path string, kind Kind, lim Limits,
	issues iter.Seq2[store.UploadIssue, error], p i18n.Printer) (err error) {
	defer recoverUnreadable(&err)
	s, err := openSheet(path, kind, lim)
	if err != nil {
		return err
	}
	defer s.close()
	l, err := s.header(kind)
	if err != nil {
		return err
	}
	next, stop := iter.Pull2(issues)
	defer stop()
	pending, perr, more := next()
	if perr != nil {
		return perr
	}

	out := excelize.NewFile()
	defer out.Close()
	name := i18n.NewPrinter(i18n.Indonesian, nil).T("uploads.tpl.data_sheet." + string(kind))
	if err := out.SetSheetName("Sheet1", name); err != nil {
		return err
	}
	st, err := newTemplateStyles(out)
	if err != nil {
		return err
	}
	errStyle, err := out.NewStyle(&excelize.Style{Font: &excelize.Font{Color: "B42318"}, Alignment: &excelize.Alignment{WrapText: true, Vertical: "top"}})
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
		fieldAt[i] = -1
	}
	for f := Field(0); f < numFields; f++ {
		if c := l.Col[f]; c >= 0 && c < width {
			fieldAt[c] = f
		}
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
		cells, ok, err := s.next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		var msgs []string
		for more && pending.Row <= s.row {
			if pending.Row == s.row {
				msgs = append(msgs, IssueOf(pending).Message(p))
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
		values := make([]any, width+2)
		for i := range width {
			if i >= len(cells) {
				continue
			}
			values[i] = cellValue(cells[i], fieldAt[i], s.date1904, st.date)
		}
		values[width] = s.row
		values[width+1] = excelize.Cell{StyleID: errStyle, Value: strings.Join(msgs, "\n")}
		outRow++
		cell, _ := excelize.CoordinatesToCellName(1, outRow)
		if err := sw.SetRow(cell, values); err != nil {
			return err
		}
	}
	if err := sw.Flush(); err != nil {
		return err
	}
	return out.Write(w)
}

// cellValue writes a cell back as the person meant it: a readable date as a date cell, a
// plain number as a number, anything else as the text it was.
func cellValue(v string, f Field, date1904 bool, dateStyle int) any {
	t := i18n.TrimSpace(v)
	switch f {
	case FieldDue, FieldExpiry, FieldActive:
		if d, err := ParseDate(t, date1904); err == nil {
			return excelize.Cell{StyleID: dateStyle, Value: d}
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
