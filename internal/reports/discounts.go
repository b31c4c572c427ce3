package reports

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/plans"
)

// Discounts is the discounts report: who had a discount or a scholarship on which fee,
// the full price, what was taken off and what is charged, and why; with totals by reason
// and by class. Its figures are the fee plans' (internal/plans: the discounts, the plans'
// prices and the components the ledger holds).
type Discounts struct {
	plans *plans.Service
	loc   *time.Location
}

// NewDiscounts is the discounts report over the fee plans p; days are read in loc.
func NewDiscounts(p *plans.Service, loc *time.Location) *Discounts {
	return &Discounts{plans: p, loc: loc}
}

// DiscountTotal adds up the lines of one reason or one class.
type DiscountTotal struct {
	// Key is the reason (plans.Reason) or the class.
	Key                string
	Lines, Students    int
	Full, Off, Charged int64
}

// DiscountsReport is the report: its lines and totals.
type DiscountsReport struct {
	Class string
	Lines []plans.DiscountLine
	// Pending counts components a discount covers that still ask the full price.
	Pending            int
	ByReason, ByClass  []DiscountTotal
	Full, Off, Charged int64
	Students           int
}

// Report reads the report (of class only, when set).
func (d *Discounts) Report(ctx context.Context, class string) (DiscountsReport, error) {
	lines, pending, err := d.plans.DiscountLines(ctx, class)
	if err != nil {
		return DiscountsReport{}, err
	}
	r := DiscountsReport{Class: class, Lines: lines, Pending: pending}
	reasons, classes := map[string]*DiscountTotal{}, map[string]*DiscountTotal{}
	seen := map[string]map[string]bool{}
	add := func(m map[string]*DiscountTotal, key string, ln plans.DiscountLine) {
		t := m[key]
		if t == nil {
			t = &DiscountTotal{Key: key}
			m[key] = t
		}
		t.Lines++
		t.Full, t.Off, t.Charged = t.Full+ln.Full, t.Off+ln.Off, t.Charged+ln.Charged
		who := "m" + key
		if seen[who] == nil {
			seen[who] = map[string]bool{}
		}
		if !seen[who][ln.Student.NIS] {
			seen[who][ln.Student.NIS] = true
			t.Students++
		}
	}
	students := map[string]bool{}
	for _, ln := range lines {
		add(reasons, string(ln.Discount.Reason), ln)
		add(classes, ln.Student.Description, ln)
		r.Full, r.Off, r.Charged = r.Full+ln.Full, r.Off+ln.Off, r.Charged+ln.Charged
		students[ln.Student.NIS] = true
	}
	r.Students = len(students)
	for _, reason := range plans.Reasons {
		if t := reasons[string(reason)]; t != nil {
			r.ByReason = append(r.ByReason, *t)
		}
	}
	for _, t := range classes {
		r.ByClass = append(r.ByClass, *t)
	}
	slices.SortFunc(r.ByClass, func(a, b DiscountTotal) int {
		return cmp.Or(cmp.Compare(noClass(a.Key), noClass(b.Key)), i18n.CompareNatural(a.Key, b.Key))
	})
	return r, nil
}

// noClass orders the students without a class last.
func noClass(class string) int {
	if class == "" {
		return 1
	}
	return 0
}

// DiscountsFilename is the download name of the discounts report.
func DiscountsFilename(class string, today time.Time, format Format) string {
	return Filename("laporan-potongan", format, today.Format(time.DateOnly), class)
}

func discountsTable(p i18n.Printer, class string, today time.Time) table {
	cl := p.T("term.all")
	if class != "" {
		cl = class
	}
	return table{
		Sheet: p.T("reports.sheet.discounts"),
		Title: p.T("reports.discounts.title"),
		Filters: []Filter{
			{p.T("reports.as_of"), p.Day(today)},
			{p.T("term.class"), cl},
		},
		Columns: []Column{
			{Title: p.T("term.nis"), Kind: KindID, Width: 14},
			{Title: p.T("term.student_name"), Width: 30},
			{Title: p.T("term.class"), Width: 12},
			{Title: p.T("reports.discounts.fee"), Width: 30},
			{Title: p.T("reports.discounts.full"), Kind: KindMoney, Width: 16, Total: true},
			{Title: p.T("reports.discounts.off"), Kind: KindMoney, Width: 16, Total: true},
			{Title: p.T("reports.discounts.charged"), Kind: KindMoney, Width: 16, Total: true},
			{Title: p.T("reports.discounts.discount"), Width: 12},
			{Title: p.T("reports.discounts.reason"), Width: 34},
			{Title: p.T("term.state"), Width: 14},
		},
		TotalLabel: p.T("term.total"),
	}
}

func totalsTable(p i18n.Printer, sheet, title, first string) table {
	return table{
		Sheet: sheet, Title: title,
		Columns: []Column{
			{Title: first, Width: 24},
			{Title: p.T("reports.discounts.students"), Kind: KindInt, Width: 12, Total: true},
			{Title: p.T("reports.discounts.lines"), Kind: KindInt, Width: 12, Total: true},
			{Title: p.T("reports.discounts.full"), Kind: KindMoney, Width: 18, Total: true},
			{Title: p.T("reports.discounts.off"), Kind: KindMoney, Width: 18, Total: true},
			{Title: p.T("reports.discounts.charged"), Kind: KindMoney, Width: 18, Total: true},
		},
		TotalLabel: p.T("term.total"),
	}
}

// LineState says a line's state: paid, billed, or waived (no component).
func LineState(p i18n.Printer, ln plans.DiscountLine) string {
	switch {
	case ln.Waived:
		return p.T(plans.CellWaived.Key())
	case ln.Paid:
		return p.T("state.paid")
	}
	return p.T("reports.discounts.billed")
}

// Export writes the report (of class only, when set) into ex: the lines; an .xlsx also
// gets a sheet of totals by reason and one by class.
func (d *Discounts) Export(ctx context.Context, class string, today time.Time, ex Export) error {
	r, err := d.Report(ctx, class)
	if err != nil {
		return err
	}
	e, err := newExporter(ex)
	if err != nil {
		return err
	}
	defer e.w.discard()
	p := ex.Printer
	t := discountsTable(p, class, today)
	if err := e.begin(t); err != nil {
		return err
	}
	v := make([]any, len(t.Columns))
	for _, ln := range r.Lines {
		v[0], v[1], v[2], v[3] = ln.Student.NIS, ln.Student.Name, ClassLabel(p, ln.Student.Description), ln.Period.Name
		v[4], v[5], v[6], v[7], v[8] = ln.Full, ln.Off, ln.Charged, ln.Discount.Text(p), ln.Discount.ReasonText(p)
		v[9] = LineState(p, ln)
		if err := e.w.row(v); err != nil {
			return err
		}
	}
	if err := e.finish(t); err != nil {
		return err
	}
	if e.w.more() {
		for _, part := range []struct {
			t      table
			totals []DiscountTotal
			label  func(string) string
		}{
			{totalsTable(p, p.T("reports.sheet.discounts_reason"), p.T("reports.discounts.by_reason"), p.T("reports.discounts.reason")),
				r.ByReason, func(k string) string { return p.T(plans.Reason(k).Key()) }},
			{totalsTable(p, p.T("reports.sheet.discounts_class"), p.T("reports.discounts.by_class"), p.T("term.class")),
				r.ByClass, func(k string) string { return ClassLabel(p, k) }},
		} {
			if err := e.w.begin(part.t); err != nil {
				return err
			}
			tv := make([]any, len(part.t.Columns))
			for _, tot := range part.totals {
				tv[0], tv[1], tv[2], tv[3], tv[4], tv[5] = part.label(tot.Key), tot.Students, tot.Lines, tot.Full, tot.Off, tot.Charged
				if err := e.w.row(tv); err != nil {
					return err
				}
			}
			if err := e.w.end(); err != nil {
				return err
			}
		}
	}
	return e.w.close()
}
