package reports

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/component"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/store"
)

// The alumni arrears: former students (graduated, moved, left: their standing is the
// portal's, internal/students) who still owe, with what and how much. Leaving keeps what
// was due before the day they left (their arrears are real), so they are counted in the
// dashboard and the arrears report like everyone; this report names them apart, for the
// bursar who follows them up after they are gone.

// FormerRoster is a roster that lists the former students (*store.DB does).
type FormerRoster interface {
	StudentsNotActive(ctx context.Context) ([]store.Student, error)
}

// AlumniFilter selects former students: of one standing ("" every one that is not
// active) and one class ("" every class).
type AlumniFilter struct {
	Status string
	Class  string
}

// AlumniItem is one unpaid component of a former student.
type AlumniItem struct {
	Name     string
	Due      time.Time
	Amount   int64
	DueToday int64 // what paying it costs today (0 when expired)
	Late     bool
	Expired  bool
}

// AlumniRow is one former student who still owes: their standing, their unpaid
// components (oldest due first), what paying the payable ones costs today (Owed, of
// which Overdue is late), and the expired ones' amounts beside (no longer payable until
// their expiry is moved).
type AlumniRow struct {
	NIS, Name, Class string
	Status           string
	On               time.Time
	Note             string
	Items            []AlumniItem
	Count            int
	Owed, Overdue    int64
	Expired          int64
	ExpiredCount     int
	OldestDue        time.Time
}

// AlumniReport is the former students who owe (the most owed first) and the totals;
// Former counts the former students looked through.
type AlumniReport struct {
	Filter AlumniFilter
	Today  time.Time
	Rows   []AlumniRow
	Total  AlumniRow
	Former int
}

// Alumni reads the alumni arrears of f from the roster and the ledger; refresh also
// asks for a sync now.
func (s *Service) Alumni(ctx context.Context, f AlumniFilter, refresh bool) (Result[AlumniReport], error) {
	return read(ctx, s, refresh, func() (AlumniReport, error) { return s.alumni(ctx, f) })
}

func (s *Service) alumni(ctx context.Context, f AlumniFilter) (AlumniReport, error) {
	today := s.Today()
	rep := AlumniReport{Filter: f, Today: today, Rows: []AlumniRow{}}
	roster, ok := s.roster.(FormerRoster)
	if !ok {
		return rep, errors.New("reports: the roster does not list former students")
	}
	former, err := roster.StudentsNotActive(ctx)
	if err != nil {
		return rep, fmt.Errorf("reports: alumni: %w", err)
	}
	for _, st := range former {
		if f.Status != "" && st.Status != f.Status || f.Class != "" && st.Description != f.Class {
			continue
		}
		rep.Former++
		r := AlumniRow{NIS: st.NIS, Name: st.Name, Class: st.Description, Status: st.Status, On: st.StatusOn, Note: st.StatusNote}
		for b, err := range s.l.AllForStudent(ctx, st.NIS, billing.Query{}) {
			if errors.Is(err, billing.ErrNotFound) {
				break // no bill of theirs in the ledger
			}
			if err != nil {
				return rep, fmt.Errorf("reports: alumni %s: %w", st.NIS, err)
			}
			c := component.On(b, today)
			if c.Status == component.StatusPaid || b.State == billing.StateDeleted {
				continue
			}
			it := AlumniItem{Name: b.Name, Due: b.Due.UTC(), Amount: b.Amount, DueToday: c.Price,
				Late: c.Status == component.StatusOverdue, Expired: c.Status == component.StatusExpired}
			r.Items = append(r.Items, it)
			if it.Expired {
				r.Expired += b.Amount
				r.ExpiredCount++
				continue
			}
			r.Count++
			r.Owed += c.Price
			if it.Late {
				r.Overdue += c.Price
			}
			if r.OldestDue.IsZero() || it.Due.Before(r.OldestDue) {
				r.OldestDue = it.Due
			}
		}
		if len(r.Items) == 0 {
			continue
		}
		slices.SortFunc(r.Items, func(a, b AlumniItem) int { return cmp.Or(a.Due.Compare(b.Due), cmp.Compare(a.Name, b.Name)) })
		rep.Rows = append(rep.Rows, r)
		rep.Total.Count += r.Count
		rep.Total.Owed += r.Owed
		rep.Total.Overdue += r.Overdue
		rep.Total.Expired += r.Expired
		rep.Total.ExpiredCount += r.ExpiredCount
	}
	slices.SortFunc(rep.Rows, func(a, b AlumniRow) int {
		return cmp.Or(cmp.Compare(b.Owed, a.Owed), cmp.Compare(b.Expired, a.Expired), i18n.CompareNatural(a.Class, b.Class),
			cmp.Compare(a.Name, b.Name), cmp.Compare(a.NIS, b.NIS))
	})
	return rep, nil
}

// AlumniFilename is the download name of the alumni arrears.
func AlumniFilename(f AlumniFilter, today time.Time, format Format) string {
	return Filename("tunggakan-alumni", format, today.Format(time.DateOnly), f.Status, f.Class)
}

func alumniTable(p i18n.Printer, f AlumniFilter, today time.Time) table {
	status := p.T("reports.alumni.all_former")
	if f.Status != "" {
		status = p.T("students.status." + f.Status)
	}
	class := p.T("term.all")
	if f.Class != "" {
		class = f.Class
	}
	return table{
		Sheet: p.T("reports.sheet.alumni"),
		Title: p.T("reports.alumni.title"),
		Filters: []Filter{
			{p.T("reports.as_of"), p.Day(today)},
			{p.T("reports.alumni.status"), status},
			{p.T("term.class"), class},
		},
		Columns: []Column{
			{Title: p.T("term.nis"), Width: 14},
			{Title: p.T("term.student_name"), Width: 30},
			{Title: p.T("term.class"), Width: 12},
			{Title: p.T("reports.alumni.status"), Width: 12},
			{Title: p.T("reports.alumni.since"), Kind: KindDate, Width: 14},
			{Title: p.T("reports.alumni.note"), Width: 28},
			{Title: p.T("reports.components"), Kind: KindInt, Width: 11, Total: true},
			{Title: p.T("term.overdue"), Kind: KindMoney, Width: 16, Total: true},
			{Title: p.T("term.unpaid"), Kind: KindMoney, Width: 16, Total: true},
			{Title: p.T("term.expired"), Kind: KindMoney, Width: 15, Total: true},
			{Title: p.T("reports.outstanding.oldest"), Kind: KindDate, Width: 14},
			{Title: p.T("reports.alumni.items"), Width: 60},
		},
		TotalLabel: p.T("term.total"),
	}
}

// alumniItems says a row's components in one cell: "SPP Juni 2026 (Rp 350.000), …".
func alumniItems(p i18n.Printer, r AlumniRow) string {
	parts := make([]string, len(r.Items))
	for i, it := range r.Items {
		amount := it.DueToday
		if it.Expired {
			amount = it.Amount
		}
		parts[i] = it.Name + " (" + i18n.Rupiah(amount) + ")"
		if it.Expired {
			parts[i] = it.Name + " (" + i18n.Rupiah(amount) + ", " + p.T("term.expired") + ")"
		}
	}
	return strings.Join(parts, "; ")
}

// ExportAlumni writes the alumni arrears of f into ex.
func (s *Service) ExportAlumni(ctx context.Context, f AlumniFilter, ex Export) error {
	rep, err := s.alumni(ctx, f)
	if err != nil {
		return err
	}
	e, err := newExporter(ex)
	if err != nil {
		return err
	}
	defer e.w.discard()
	p := ex.Printer
	t := alumniTable(p, f, rep.Today)
	if err := e.begin(t); err != nil {
		return err
	}
	for _, r := range rep.Rows {
		if err := e.w.row([]any{r.NIS, r.Name, ClassLabel(p, r.Class), p.T("students.status." + r.Status), r.On, r.Note,
			r.Count, r.Overdue, r.Owed, r.Expired, r.OldestDue, alumniItems(p, r)}); err != nil {
			return err
		}
	}
	if err := e.finish(t); err != nil {
		return err
	}
	return e.w.close()
}
