package reports

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/sekolah/portal/internal/celltext"
)

// RupiahFormat is the number format of money cells.
const RupiahFormat = `"Rp "#,##0`

// DateFormat is the number format of date cells: day first, as Indonesians write it.
const DateFormat = "dd/mm/yyyy"

// TimeFormat is the number format of time-of-day cells.
const TimeFormat = "hh:mm"

// xlsxStyles are the workbook's cell styles, made once per file.
type xlsxStyles struct {
	title, metaLabel, metaValue, header         int
	money, count, date, clock, text             int
	totalLabel, totalMoney, totalCount, totalNo int
}

// xlsxWriter streams tables into sheets with excelize's StreamWriter: rows go to a
// temporary file as they come, so memory stays flat however long the report is. The
// sheet has the title, the filters, who generated it and when, then a styled, frozen
// header row with an autofilter, the rows, and a totals row with SUM formulas.
type xlsxWriter struct {
	ex     Export
	f      *excelize.File
	st     xlsxStyles
	sw     *excelize.StreamWriter
	t      table
	sheets int
	header int // row number of the header
	rowNum int // last row written
	sums   []int64
	vals   []any
	// quoted gives the quote-prefixed copy of a style, for a text that starts like a
	// formula: kept as typed, shown and edited as text (CSV's apostrophe would show).
	quoted   *celltext.Quoted
	colStyle []int // each column's style
}

// text is a text cell of style st, quote-prefixed when it starts like a formula.
func (x *xlsxWriter) text(st int, s string) (excelize.Cell, error) {
	if !celltext.Formulaic(s) {
		return excelize.Cell{StyleID: st, Value: s}, nil
	}
	q, err := x.quoted.Style(st)
	return excelize.Cell{StyleID: q, Value: s}, err
}

func newXLSXWriter(ex Export) *xlsxWriter {
	return &xlsxWriter{ex: ex}
}

func (x *xlsxWriter) more() bool { return true }

func (x *xlsxWriter) styles() error {
	f := x.f
	var errs []error
	style := func(s *excelize.Style) int {
		id, err := f.NewStyle(s)
		errs = append(errs, err)
		return id
	}
	rupiah, date, clock := RupiahFormat, DateFormat, TimeFormat
	top := []excelize.Border{{Type: "top", Color: "1A2330", Style: 1}}
	x.st = xlsxStyles{
		title:     style(&excelize.Style{Font: &excelize.Font{Bold: true, Size: 14, Color: "1A2330"}}),
		metaLabel: style(&excelize.Style{Font: &excelize.Font{Bold: true, Color: "5A6677"}}),
		metaValue: style(&excelize.Style{Font: &excelize.Font{Color: "5A6677"}, Alignment: &excelize.Alignment{Horizontal: "left"}}),
		header: style(&excelize.Style{
			Font:      &excelize.Font{Bold: true, Color: "FFFFFF"},
			Fill:      excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"1D4F91"}},
			Alignment: &excelize.Alignment{Vertical: "center", WrapText: true},
			Border:    []excelize.Border{{Type: "bottom", Color: "163E73", Style: 1}},
		}),
		money:      style(&excelize.Style{CustomNumFmt: &rupiah}),
		count:      style(&excelize.Style{NumFmt: 3}),
		date:       style(&excelize.Style{CustomNumFmt: &date, Alignment: &excelize.Alignment{Horizontal: "left"}}),
		clock:      style(&excelize.Style{CustomNumFmt: &clock, Alignment: &excelize.Alignment{Horizontal: "left"}}),
		text:       style(&excelize.Style{NumFmt: 49}), // "@": a typed NIS stays text
		totalLabel: style(&excelize.Style{Font: &excelize.Font{Bold: true}, Border: top}),
		totalMoney: style(&excelize.Style{Font: &excelize.Font{Bold: true}, Border: top, CustomNumFmt: &rupiah}),
		totalCount: style(&excelize.Style{Font: &excelize.Font{Bold: true}, Border: top, NumFmt: 3}),
		totalNo:    style(&excelize.Style{Border: top}),
	}
	return errors.Join(errs...)
}

func colName(i int) string {
	n, _ := excelize.ColumnNumberToName(i)
	return n
}

func (x *xlsxWriter) begin(t table) error {
	if x.f == nil {
		if x.ex.Start != nil {
			x.ex.Start()
		}
		flushOut(x.ex.W)
		x.f = excelize.NewFile()
		x.quoted = celltext.NewQuoted(x.f)
		if err := x.styles(); err != nil {
			return fmt.Errorf("reports: xlsx styles: %w", err)
		}
		_ = x.f.SetDocProps(&excelize.DocProperties{Title: t.Title, Creator: x.ex.By})
	}
	f := x.f
	if x.sheets == 0 {
		if err := f.SetSheetName("Sheet1", t.Sheet); err != nil {
			return err
		}
	} else if _, err := f.NewSheet(t.Sheet); err != nil {
		return err
	}
	x.sheets++
	// Sheet properties are written when the stream starts, so they are set first.
	fit := true
	if err := f.SetSheetProps(t.Sheet, &excelize.SheetPropsOptions{FitToPage: &fit}); err != nil {
		return err
	}
	sw, err := f.NewStreamWriter(t.Sheet)
	if err != nil {
		return err
	}
	x.sw, x.t = sw, t
	last := len(t.Columns)
	x.header = 1 + len(t.Filters) + 1 + 2
	x.sums = make([]int64, last)
	x.vals = make([]any, last)
	x.colStyle = make([]int, last)

	for i, c := range t.Columns {
		col := i + 1
		if err := sw.SetColWidth(col, col, c.Width); err != nil {
			return err
		}
		st := x.st.text
		switch c.Kind {
		case KindMoney:
			st = x.st.money
		case KindInt:
			st = x.st.count
		case KindDate:
			st = x.st.date
		case KindTime:
			st = x.st.clock
		}
		if err := sw.SetColStyle(col, col, st); err != nil {
			return err
		}
		x.colStyle[i] = st
	}
	if err := sw.SetPanes(&excelize.Panes{
		Freeze: true, YSplit: x.header, TopLeftCell: "A" + strconv.Itoa(x.header+1), ActivePane: "bottomLeft",
		Selection: []excelize.Selection{{SQRef: "A" + strconv.Itoa(x.header+1), ActiveCell: "A" + strconv.Itoa(x.header+1), Pane: "bottomLeft"}},
	}); err != nil {
		return err
	}

	lastCol := colName(last)
	r := 1
	if err := sw.SetRow("A1", []any{excelize.Cell{StyleID: x.st.title, Value: t.Title}}, excelize.RowOpts{Height: 22}); err != nil {
		return err
	}
	if err := sw.MergeCell("A1", lastCol+"1"); err != nil {
		return err
	}
	meta := append(append([]Filter{}, t.Filters...), Filter{
		Label: x.ex.Printer.T("reports.generated"),
		Value: x.ex.Printer.T("reports.generated_by", x.ex.Printer.DateTime(x.ex.At), x.ex.By),
	})
	for _, m := range meta {
		r++
		cell := "A" + strconv.Itoa(r)
		label, err := x.text(x.st.metaLabel, m.Label)
		if err != nil {
			return err
		}
		value, err := x.text(x.st.metaValue, m.Value)
		if err != nil {
			return err
		}
		if err := sw.SetRow(cell, []any{label, value}); err != nil {
			return err
		}
		if last > 2 {
			if err := sw.MergeCell("B"+strconv.Itoa(r), lastCol+strconv.Itoa(r)); err != nil {
				return err
			}
		}
	}
	head := make([]any, last)
	for i, c := range t.Columns {
		h, err := x.text(x.st.header, c.Title)
		if err != nil {
			return err
		}
		head[i] = h
	}
	if err := sw.SetRow("A"+strconv.Itoa(x.header), head, excelize.RowOpts{Height: 30}); err != nil {
		return err
	}
	x.rowNum = x.header
	return nil
}

func (x *xlsxWriter) row(vals []any) error {
	x.rowNum++
	for i, v := range vals {
		// Keep the caller's boxed value unless it changes: boxing again costs an
		// allocation per cell.
		x.vals[i] = v
		switch v := v.(type) {
		case Code:
			x.vals[i] = string(v) // a text cell: its leading zeros stay
		case string:
			if v == "" {
				x.vals[i] = nil
			} else if celltext.Formulaic(v) {
				c, err := x.text(x.colStyle[i], v)
				if err != nil {
					return err
				}
				x.vals[i] = c
			}
		case int64:
			if x.t.Columns[i].Total {
				x.sums[i] += v
			}
		case int:
			if x.t.Columns[i].Total {
				x.sums[i] += int64(v)
			}
		case time.Time:
			if v.IsZero() {
				x.vals[i] = nil
			}
		case TimeOfDay:
			// A time cell is the fraction of a day.
			if v < 0 {
				x.vals[i] = nil
			} else {
				x.vals[i] = float64(v) / 86400
			}
		}
	}
	return x.sw.SetRow("A"+strconv.Itoa(x.rowNum), x.vals)
}

// end writes the totals row (SUM formulas, with the sums as cached values so readers
// that do not calculate see them too), the autofilter and the print setup, and closes
// the sheet.
func (x *xlsxWriter) end() error {
	t, sw := x.t, x.sw
	first, lastData := x.header+1, x.rowNum
	if t.TotalLabel != "" {
		x.rowNum++
		cells := make([]any, len(t.Columns))
		for i, c := range t.Columns {
			switch {
			case i == 0:
				c, err := x.text(x.st.totalLabel, t.TotalLabel)
				if err != nil {
					return err
				}
				cells[i] = c
			case c.Total:
				st := x.st.totalMoney
				if c.Kind == KindInt {
					st = x.st.totalCount
				}
				cell := excelize.Cell{StyleID: st, Value: x.sums[i]}
				if lastData >= first {
					col := colName(i + 1)
					cell.Formula = fmt.Sprintf("SUM(%s%d:%s%d)", col, first, col, lastData)
				}
				cells[i] = cell
			default:
				cells[i] = excelize.Cell{StyleID: x.st.totalNo}
			}
		}
		if err := sw.SetRow("A"+strconv.Itoa(x.rowNum), cells); err != nil {
			return err
		}
	}
	lastCol := colName(len(t.Columns))
	if err := x.f.AutoFilter(t.Sheet, fmt.Sprintf("A%d:%s%d", x.header, lastCol, max(lastData, x.header)), nil); err != nil {
		return err
	}
	landscape, one, tall := "landscape", 1, 0
	if err := x.f.SetPageLayout(t.Sheet, &excelize.PageLayoutOptions{Orientation: &landscape, FitToWidth: &one, FitToHeight: &tall}); err != nil {
		return err
	}
	if err := x.f.SetDefinedName(&excelize.DefinedName{
		Name: "_xlnm.Print_Titles", RefersTo: fmt.Sprintf("'%s'!$%d:$%d", t.Sheet, x.header, x.header), Scope: t.Sheet,
	}); err != nil {
		return err
	}
	return sw.Flush()
}

func (x *xlsxWriter) close() error {
	if x.f == nil {
		return nil
	}
	defer x.discard()
	if err := x.f.Write(x.ex.W); err != nil {
		return fmt.Errorf("reports: write xlsx: %w", err)
	}
	return nil
}

// discard removes the stream's temporary files.
func (x *xlsxWriter) discard() {
	if x.f != nil {
		_ = x.f.Close()
		x.f = nil
	}
}
