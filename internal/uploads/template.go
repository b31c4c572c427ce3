package uploads

import (
	"fmt"
	"io"
	"iter"
	"strconv"
	"strings"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/celltext"
	"github.com/sekolah/portal/internal/i18n"
)

// templateRows is how far down the templates' drop-downs and checks reach.
const templateRows = 5001

// fieldHelp is each field's key of its column description in the instructions.
var fieldHelp = map[Field]string{
	FieldNIS: "uploads.tpl.col.nis", FieldName: "uploads.tpl.col.name", FieldAccount: "uploads.tpl.col.account",
	FieldAmount: "uploads.tpl.col.amount", FieldPenalty: "uploads.tpl.col.penalty", FieldDue: "uploads.tpl.col.due",
	FieldExpiry: "uploads.tpl.col.expiry", FieldActive: "uploads.tpl.col.active", FieldNotes: "uploads.tpl.col.notes",
	FieldStudentName: "uploads.tpl.col.student_name", FieldClass: "uploads.tpl.col.class",
	FieldPhone: "uploads.tpl.col.phone", FieldEmail: "uploads.tpl.col.email", FieldComponentID: "uploads.tpl.col.id",
}

// WriteTemplate writes the kind's template: the data sheet with its header row (frozen),
// column widths, number and date formats, and checks Excel applies while typing (account
// codes as a drop-down, dates as dates, amounts as whole numbers); then an instructions
// sheet in Indonesian and English with example rows.
func WriteTemplate(w io.Writer, kind Kind, accounts []string) error {
	return writeTemplate(w, kind, accounts, nil)
}

// WriteCorrectionSheet writes bills in the components template's shape (the same columns,
// drop-downs, formats and instructions) with each bill's "ID Tagihan" filled in: a bursar
// corrects the cells in Excel and uploads the file back, which changes those bills.
func WriteCorrectionSheet(w io.Writer, accounts []string, bills iter.Seq2[billing.Bill, error]) error {
	return writeTemplate(w, Components, accounts, func(f *excelize.File, sheet string) (int, []string, error) {
		row := 1
		var quote []string
		for b, err := range bills {
			if err != nil {
				return 0, nil, err
			}
			row++
			c := componentOf(b)
			var active any
			if !c.Active.IsZero() {
				active = c.Active
			}
			values := []any{c.NIS, c.Name, c.AccountCode, c.Amount, c.Penalty, c.Due, c.Expiry, active, c.Notes, b.ComponentID}
			if err := f.SetSheetRow(sheet, "A"+strconv.Itoa(row), &values); err != nil {
				return 0, nil, err
			}
			// A text typed as "=HYPERLINK(…)" stays that text when a bursar edits the cell.
			for i, v := range values {
				if s, ok := v.(string); ok && celltext.Formulaic(s) {
					quote = append(quote, colName(i)+strconv.Itoa(row))
				}
			}
		}
		return row, quote, nil
	})
}

// writeTemplate writes the kind's template; fill, when set, writes data rows from row 2
// on and returns the last row written and the cells of text that starts like a formula
// (given the quote prefix: the text stays as it is, shown and edited as text).
func writeTemplate(w io.Writer, kind Kind, accounts []string, fill func(f *excelize.File, sheet string) (int, []string, error)) error {
	if _, ok := columnsOf[kind]; !ok {
		return fmt.Errorf("uploads: unknown kind %q", kind)
	}
	cols := templateColumns(kind)
	id, en := i18n.NewPrinter(i18n.Indonesian, nil), i18n.NewPrinter(i18n.English, nil)
	f := excelize.NewFile()
	defer f.Close()
	data := id.T("uploads.tpl.data_sheet." + string(kind))
	if err := f.SetSheetName("Sheet1", data); err != nil {
		return err
	}
	st, err := newTemplateStyles(f)
	if err != nil {
		return err
	}
	lastRow := 1
	var quote []string
	if fill != nil {
		var err error
		if lastRow, quote, err = fill(f, data); err != nil {
			return err
		}
	}
	last := fmt.Sprint(max(templateRows, lastRow+1000))
	for i, c := range cols {
		col := colName(i)
		if err := f.SetColWidth(data, col, col, c.width); err != nil {
			return err
		}
		style := st.text
		switch c.field {
		case FieldAmount, FieldPenalty:
			style = st.amount
		case FieldDue, FieldExpiry, FieldActive:
			style = st.date
		}
		if err := f.SetColStyle(data, col, style); err != nil {
			return err
		}
		if err := f.SetCellValue(data, col+"1", c.header); err != nil {
			return err
		}
		if err := f.SetCellStyle(data, col+"1", col+"1", st.header); err != nil {
			return err
		}
		if err := addCheck(f, data, col+"2:"+col+last, c.field, accounts, id, en); err != nil {
			return err
		}
	}
	// After the columns' styles, which set every cell's: the text columns' style, quoted.
	if len(quote) > 0 {
		quoted, err := celltext.NewQuoted(f).Style(st.text)
		if err != nil {
			return err
		}
		for _, ref := range quote {
			if err := f.SetCellStyle(data, ref, ref, quoted); err != nil {
				return err
			}
		}
	}
	if err := f.SetPanes(data, &excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"}); err != nil {
		return err
	}
	if err := writeInstructions(f, kind, cols, accounts, st, id, en); err != nil {
		return err
	}
	f.SetActiveSheet(0)
	return f.Write(w)
}

type templateStyles struct{ header, text, amount, date, title, bold, wrap int }

func newTemplateStyles(f *excelize.File) (templateStyles, error) {
	var st templateStyles
	dateFmt := "dd/mm/yyyy"
	specs := []struct {
		dst   *int
		style *excelize.Style
	}{
		{&st.header, &excelize.Style{Font: &excelize.Font{Bold: true, Color: "FFFFFF"},
			Fill:      excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"1D4F91"}},
			Alignment: &excelize.Alignment{Vertical: "center"}}},
		{&st.text, &excelize.Style{NumFmt: 49}}, // "@": NIS keep their leading zeros
		{&st.amount, &excelize.Style{NumFmt: 3}},
		{&st.date, &excelize.Style{CustomNumFmt: &dateFmt}},
		{&st.title, &excelize.Style{Font: &excelize.Font{Bold: true, Size: 14}}},
		{&st.bold, &excelize.Style{Font: &excelize.Font{Bold: true}}},
		{&st.wrap, &excelize.Style{Alignment: &excelize.Alignment{WrapText: true, Vertical: "top"}}},
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

// excelSerial is a day as Excel counts it (1900 system).
func excelSerial(t time.Time) int { return int(t.Sub(excelEpoch1900).Hours() / 24) }

func addCheck(f *excelize.File, sheet, ref string, field Field, accounts []string, id, en i18n.Printer) error {
	dv := excelize.NewDataValidation(true)
	dv.Sqref = ref
	bilingual := func(key string, args ...any) string { return id.T(key, args...) + " / " + en.T(key, args...) }
	switch field {
	case FieldAccount:
		if err := dv.SetDropList(accounts); err != nil {
			return err
		}
		dv.SetError(excelize.DataValidationErrorStyleStop, "Kode rekening / Account code", bilingual("uploads.tpl.col.account", strings.Join(accounts, ", ")))
	case FieldAmount:
		if err := dv.SetRange(1, int(i18n.MaxRupiah), excelize.DataValidationTypeWhole, excelize.DataValidationOperatorBetween); err != nil {
			return err
		}
		dv.SetError(excelize.DataValidationErrorStyleStop, "Nominal / Amount", bilingual("uploads.tpl.col.amount"))
	case FieldPenalty:
		if err := dv.SetRange(0, int(i18n.MaxRupiah), excelize.DataValidationTypeWhole, excelize.DataValidationOperatorBetween); err != nil {
			return err
		}
		dv.SetError(excelize.DataValidationErrorStyleStop, "Denda / Late fee", bilingual("uploads.tpl.col.penalty"))
	case FieldDue, FieldExpiry, FieldActive:
		from := excelSerial(time.Date(MinYear, 1, 1, 0, 0, 0, 0, time.UTC))
		to := excelSerial(time.Date(MaxYear, 12, 31, 0, 0, 0, 0, time.UTC))
		if err := dv.SetRange(from, to, excelize.DataValidationTypeDate, excelize.DataValidationOperatorBetween); err != nil {
			return err
		}
		dv.SetError(excelize.DataValidationErrorStyleStop, "Tanggal / Date", bilingual("uploads.tpl.col.due"))
	default:
		return nil
	}
	return f.AddDataValidation(sheet, dv)
}

// examples are the instruction sheet's sample rows per kind.
func examples(kind Kind, accounts []string) [][]any {
	d := func(y int, m time.Month, day int) time.Time { return time.Date(y, m, day, 0, 0, 0, 0, time.UTC) }
	code := func(i int) string { return accounts[i%len(accounts)] }
	if kind == Students {
		return [][]any{
			{"2026001", "Ahmad Pratama", "Kelas 7A", "081234567890", "ortu.ahmad@example.com"},
			{"2026002", "Siti Rahmawati", "Kelas 7B", "+62 812 9876 5432", ""},
		}
	}
	return [][]any{
		{"2026001", "SPP Juli 2026", code(0), int64(350_000), int64(25_000), d(2026, 7, 10), d(2026, 7, 31), d(2026, 7, 1), ""},
		{"2026001", "Uang Kegiatan Semester 1", code(1), int64(500_000), int64(0), d(2026, 8, 15), d(2026, 9, 30), nil, "Dapat dicicil"},
	}
}

func writeInstructions(f *excelize.File, kind Kind, cols []column, accounts []string, st templateStyles, id, en i18n.Printer) error {
	sheet := id.T("uploads.tpl.sheet")
	if _, err := f.NewSheet(sheet); err != nil {
		return err
	}
	for col, width := range map[string]float64{"A": 18, "B": 12, "C": 60, "D": 60} {
		if err := f.SetColWidth(sheet, col, col, width); err != nil {
			return err
		}
	}
	row := 1
	set := func(style int, values ...any) error {
		cell := fmt.Sprintf("A%d", row)
		if err := f.SetSheetRow(sheet, cell, &values); err != nil {
			return err
		}
		if style != 0 {
			end, _ := excelize.CoordinatesToCellName(max(len(values), 1), row)
			if err := f.SetCellStyle(sheet, cell, end, style); err != nil {
				return err
			}
		}
		row++
		return nil
	}
	steps := []func() error{
		func() error {
			return set(st.title, id.T("uploads.tpl.title."+string(kind))+" / "+en.T("uploads.tpl.title."+string(kind)))
		},
		func() error { row++; return nil },
		func() error { return set(st.bold, "", "", id.T("uploads.tpl.lang"), en.T("uploads.tpl.lang")) },
		func() error {
			return set(st.wrap, "", "", id.T("uploads.tpl.intro."+string(kind)), en.T("uploads.tpl.intro."+string(kind)))
		},
		func() error { return set(st.wrap, "", "", id.T("uploads.tpl.checks"), en.T("uploads.tpl.checks")) },
		func() error { row++; return nil },
		func() error {
			return set(st.bold, id.T("uploads.tpl.column")+" / "+en.T("uploads.tpl.column"), "", id.T("uploads.tpl.lang"), en.T("uploads.tpl.lang"))
		},
	}
	for _, s := range steps {
		if err := s(); err != nil {
			return err
		}
	}
	list := strings.Join(accounts, ", ")
	for _, c := range cols {
		need := id.T("uploads.tpl.optional") + " / " + en.T("uploads.tpl.optional")
		if c.required {
			need = id.T("uploads.tpl.required") + " / " + en.T("uploads.tpl.required")
		}
		var idText, enText string
		if c.field == FieldAccount {
			idText, enText = id.T(fieldHelp[c.field], list), en.T(fieldHelp[c.field], list)
		} else {
			idText, enText = id.T(fieldHelp[c.field]), en.T(fieldHelp[c.field])
		}
		if err := set(st.wrap, c.header, need, idText, enText); err != nil {
			return err
		}
	}
	row++
	if err := set(st.bold, id.T("uploads.tpl.example")+" / "+en.T("uploads.tpl.example")); err != nil {
		return err
	}
	header := make([]any, len(cols))
	for i, c := range cols {
		header[i] = c.header
	}
	if err := set(st.header, header...); err != nil {
		return err
	}
	for _, ex := range examples(kind, accounts) {
		if err := set(0, ex...); err != nil {
			return err
		}
		for i, c := range cols {
			if c.field == FieldDue || c.field == FieldExpiry || c.field == FieldActive {
				cell, _ := excelize.CoordinatesToCellName(i+1, row-1)
				if err := f.SetCellStyle(sheet, cell, cell, st.date); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
