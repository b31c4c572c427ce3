package reports

import (
	"fmt"
	"time"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/plans"
)

// KartuFilename is the download name of a class's kartu SPP.
func KartuFilename(code, class string, today time.Time, format Format) string {
	return Filename("kartu-spp", format, code, class, today.Format(time.DateOnly))
}

// KartuCellText is what a kartu cell says in a file or on a card: the day it was paid,
// or its state.
func KartuCellText(p i18n.Printer, c plans.Cell) string {
	text := p.T(c.State.Key())
	if c.State == plans.CellPaid {
		text = p.T("plans.cell.paid_on", p.Day(c.PaidOn))
	}
	if c.Parts > 1 { // a month split into instalments: how many of them are paid
		text += " · " + p.T("plans.kartu.parts_paid", c.PaidParts, c.Parts)
	}
	return text
}

// ExportKartu writes the kartu SPP k (one class) into ex: a student a row, a period a
// column, each cell what the student's component of the period is today.
func ExportKartu(k plans.Kartu, ex Export) error {
	p := ex.Printer
	cols := []Column{
		{Title: p.T("term.nis"), Kind: KindID, Width: 14},
		{Title: p.T("term.student_name"), Width: 28},
	}
	for _, pe := range k.Periods {
		cols = append(cols, Column{Title: pe.Name, Width: 16})
	}
	cols = append(cols,
		Column{Title: p.T("term.paid"), Kind: KindMoney, Width: 16, Total: true},
		Column{Title: p.T("plans.kartu.owed"), Kind: KindMoney, Width: 16, Total: true},
		Column{Title: p.T("term.expired"), Kind: KindMoney, Width: 16, Total: true})
	t := table{
		Sheet: p.T("reports.sheet.kartu"),
		Title: fmt.Sprintf("%s · %s", p.T("plans.kartu.title"), k.Plan.Name),
		Filters: []Filter{
			{p.T("term.class"), ClassLabel(p, k.Class)},
			{p.T("reports.as_of"), p.Day(k.Today)},
		},
		Columns:    cols,
		TotalLabel: p.T("term.total"),
	}
	e, err := newExporter(ex)
	if err != nil {
		return err
	}
	defer e.w.discard()
	if err := e.begin(t); err != nil {
		return err
	}
	v := make([]any, len(cols))
	for _, r := range k.Rows {
		name := r.Student.Name
		if !r.Status.Active() {
			name += " (" + p.T(r.Status.Key()) + ")"
		}
		v[0], v[1] = r.Student.NIS, name
		for i, c := range r.Cells {
			v[2+i] = KartuCellText(p, c)
		}
		n := 2 + len(r.Cells)
		v[n], v[n+1], v[n+2] = r.Paid, r.Owed, r.Expired
		if err := e.w.row(v); err != nil {
			return err
		}
	}
	if err := e.finish(t); err != nil {
		return err
	}
	return e.w.close()
}
