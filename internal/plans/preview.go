package plans

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/students"
)

// The apply form's fields (the contract's names), as problem fields.
const (
	FieldClass = "class"
	FieldGrade = "grade"
	FieldNIS   = "nis"
)

// MaxStudents bounds the students one apply bills (a school of 5.000 is large).
const MaxStudents = 5000

// Selection is whom a plan is applied to and for which periods.
type Selection struct {
	// Classes and Grades select the roster's students of those classes and grades; NIS
	// adds students by NIS.
	Classes, Grades, NIS []string
	// From and To bound the periods (a period starting in one of these months).
	From, To Month
	// Earlier also bills the periods before a student's first component of the plan (see
	// the package doc: they are otherwise taken to have joined then).
	Earlier bool
	// Recreate makes again a component of the plan that was cancelled.
	Recreate bool
}

// SelectionForm is the apply form as typed.
type SelectionForm struct {
	Classes, Grades, NIS []string
	From, To             string
	Earlier, Recreate    bool
}

// Parse checks the form against plan p: someone chosen, months within the plan's.
func (f SelectionForm) Parse(p Plan) (Selection, problem.List) {
	var l problem.List
	sel := Selection{Earlier: f.Earlier, Recreate: f.Recreate}
	seen := map[string]bool{}
	for _, c := range f.Classes {
		if c = strings.Join(strings.Fields(c), " "); c != "" && !seen["c"+c] {
			seen["c"+c] = true
			sel.Classes = append(sel.Classes, c)
		}
	}
	for _, g := range f.Grades {
		if g, ok := gradeOnly(g); ok && !seen["g"+g] {
			seen["g"+g] = true
			sel.Grades = append(sel.Grades, g)
		}
	}
	for _, typed := range f.NIS {
		for _, n := range strings.FieldsFunc(typed, func(r rune) bool { return r == ',' || r == ';' || r == ' ' || r == '\n' || r == '\r' || r == '\t' }) {
			switch {
			case !students.ValidNIS(n):
				l.Add(FieldNIS, "plans.err.nis", n)
			case !seen["n"+n]:
				seen["n"+n] = true
				sel.NIS = append(sel.NIS, n)
			}
		}
	}
	if len(sel.Classes)+len(sel.Grades)+len(sel.NIS) == 0 && !l.Has(FieldNIS) {
		l.Add(FieldClass, "plans.err.nobody")
	}
	sel.From, sel.To = p.From, p.To
	var ok bool
	if strings.TrimSpace(f.From) != "" {
		if sel.From, ok = ParseMonth(f.From); !ok {
			l.Add(FieldFrom, "plans.err.month")
		} else if sel.From < p.From || sel.From > p.To {
			l.Add(FieldFrom, "plans.err.outside", p.From.First(), p.To.First())
		}
	}
	if strings.TrimSpace(f.To) != "" {
		if sel.To, ok = ParseMonth(f.To); !ok {
			l.Add(FieldTo, "plans.err.month")
		} else if sel.To < p.From || sel.To > p.To {
			l.Add(FieldTo, "plans.err.outside", p.From.First(), p.To.First())
		}
	}
	if !l.Has(FieldFrom) && !l.Has(FieldTo) && sel.To < sel.From {
		l.Add(FieldTo, "plans.err.to_before_from")
	}
	return sel, l
}

// Text says the selection for the job's record: "Kelas 7A, Kelas 7B, tingkat 8, 3 NIS".
func (sel Selection) Text() string {
	parts := slices.Clone(sel.Classes)
	for _, g := range sel.Grades {
		parts = append(parts, "tingkat "+g)
	}
	switch n := len(sel.NIS); {
	case n > 0 && n <= 5:
		parts = append(parts, "NIS "+strings.Join(sel.NIS, ", "))
	case n > 5:
		parts = append(parts, fmt.Sprintf("%d NIS", n))
	}
	return strings.Join(parts, ", ")
}

// Why a student's period is not billed (catalogue keys: the preview and the job's page
// word them).
const (
	// NotActive: the student is not at the school (graduated, moved, left).
	NotActive = "plans.skip.not_active"
	// Joined: the period ended before the student joined.
	Joined = "plans.skip.joined"
	// Exists: the component is at the service already.
	Exists = "plans.skip.exists"
	// Cancelled: the component was made and cancelled since; not made again unless asked.
	Cancelled = "plans.skip.cancelled"
	// Waived: a 100% discount: nothing to charge, no component.
	Waived = "plans.skip.waived"
)

// JoinSource says how a student's first billed period was known.
type JoinSource string

// How a student's first period is known.
const (
	// JoinedRoster: the day the roster first had them, added through the portal (a form,
	// a sheet, a registration) after the plan began.
	JoinedRoster JoinSource = "roster"
	// JoinedFirst: their first component of the plan (they were billed from then on: the
	// service's own record, which survives the portal's database).
	JoinedFirst JoinSource = "first"
)

// Line is one student of a preview: who, what they pay a period, their discount, and
// how many periods are made, found there, waived or left.
type Line struct {
	Student students.Student
	Status  students.Status
	// Price is the full price of a period (of the whole fee, for instalments) and Rate
	// the rate of the plan's own that set it (zero: the plan's amount).
	Price int64
	Rate  Rate
	// Discount is the discount that applies (the largest), when one does.
	Discount *Discount
	// Start is the first month billed when the student joined after the plan began, and
	// how that is known (JoinedRoster, JoinedFirst); zero when from the selection's start.
	Start   Month
	StartBy JoinSource
	// Periods counted by what happens to them.
	Create, Exists, Waived, Cancelled, Before int
	// Amount is what the components to create charge; Off what the discount gives off them.
	Amount, Off int64
}

// Preview is exactly what applying a plan to a selection does, computed from the roster,
// the ledger (what exists: the plan's key in the components' notes) and the discounts.
type Preview struct {
	Plan    Plan
	Sel     Selection
	Periods []Period
	Lines   []Line
	// Totals: components to create and their amount (Full before discounts, Off given);
	// found there already, waived by a 100% discount, cancelled before (left), before a
	// student joined; students not active.
	Create, Exists, Waived, Cancelled, Before, Inactive int
	Amount, Full, Off                                   int64
	// Fingerprint is of what will be sent: the confirmation carries it, and a preview
	// that changed in between (a component paid or made, a discount granted, the plan
	// changed) is shown again instead of sent.
	Fingerprint string
	items       []store.PlanItem
}

// Students is how many students the selection holds.
func (p Preview) Students() int { return len(p.Lines) }

// charge is what period pe of plan p costs a student of class with the discounts ds: the
// full price, what is charged, and the discount applied. A periodic plan's discount
// applies to each period; a one-time plan's to the whole fee before it is split into its
// instalments (a Rp 500.000 discount of Uang Pangkal takes Rp 500.000 off the total).
func (p Plan) charge(class string, pe Period, ds []Discount) (full, charged int64, applied *Discount) {
	price, _ := p.PriceFor(class)
	at := pe.Month
	if pe.Parts > 1 {
		at = p.From
	}
	d, ok := Best(ds, p.ID, at, price)
	if !ok {
		f := split(price, pe)
		return f, f, nil
	}
	return split(price, pe), splitCharged(price, d.Charge(price), pe), &d
}

// Preview computes what applying plan p to sel does.
func (s *Service) Preview(ctx context.Context, p Plan, sel Selection) (Preview, problem.List, error) {
	list, probs, err := s.selected(ctx, sel)
	if err != nil || len(probs) > 0 {
		return Preview{}, probs, err
	}
	pv := Preview{Plan: p, Sel: sel, Periods: p.PeriodsIn(sel.From, sel.To)}
	nis := make([]string, len(list))
	for i, st := range list {
		nis[i] = st.NIS
	}
	comps, err := s.ledger.PlanComponents(ctx, p.Code, nis)
	if err != nil {
		return pv, nil, err
	}
	type held struct {
		live, deleted bool
	}
	have := map[string]map[string]held{}
	first := map[string]Month{}
	for _, c := range comps {
		m := have[c.NIS]
		if m == nil {
			m = map[string]held{}
			have[c.NIS] = m
		}
		h := m[c.Period]
		if c.Bill.State == billing.StateDeleted {
			h.deleted = true
		} else {
			h.live = true
		}
		m[c.Period] = h
		if at, ok := ParseMonth(c.Period); ok && (first[c.NIS].IsZero() || at < first[c.NIS]) {
			first[c.NIS] = at
		}
	}
	ds, err := s.Discounts(ctx, nis)
	if err != nil {
		return pv, nil, err
	}
	byNIS := map[string][]Discount{}
	for _, d := range ds {
		byNIS[d.NIS] = append(byNIS[d.NIS], d)
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\n", p.ID, p.UpdatedAt.UTC().Format(time.RFC3339Nano), sel.From, sel.To)
	for _, st := range list {
		ln := Line{Student: st, Status: students.StatusOf(st.Status)}
		ln.Price, ln.Rate = p.PriceFor(st.Description)
		if !ln.Status.Active() {
			pv.Inactive++
			pv.Lines = append(pv.Lines, ln)
			fmt.Fprintf(h, "%s inactive\n", st.NIS)
			continue
		}
		s.startOf(&ln, p, sel, first[st.NIS])
		for _, pe := range pv.Periods {
			key := pe.Month.String()
			hd := have[st.NIS][key]
			full, charged, d := p.charge(st.Description, pe, byNIS[st.NIS])
			if d != nil && ln.Discount == nil {
				ln.Discount = d
			}
			it := store.PlanItem{NIS: st.NIS, StudentName: st.Name, Class: st.Description, Period: key, Name: pe.Name,
				FullAmount: full, Amount: charged, Penalty: p.Penalty, Due: pe.Due, Expiry: pe.Expiry, Active: pe.Active,
				State: string(itemPending)}
			if d != nil {
				it.DiscountID = d.ID
			}
			switch {
			case !ln.Start.IsZero() && pe.Last() < ln.Start:
				ln.Before++
				continue
			case hd.live:
				ln.Exists++
				continue
			case hd.deleted && !sel.Recreate:
				ln.Cancelled++
				continue
			case charged == 0:
				ln.Waived++
				it.State, it.Problem, it.Chunk = string(itemSkipped), Waived, -1
			default:
				ln.Create++
				ln.Amount += charged
				ln.Off += full - charged
				pv.Full += full
			}
			it.Seq = len(pv.items)
			pv.items = append(pv.items, it)
			fmt.Fprintf(h, "%s %s %d %d %s\n", it.NIS, it.Period, it.FullAmount, it.Amount, it.State)
		}
		pv.Create += ln.Create
		pv.Exists += ln.Exists
		pv.Waived += ln.Waived
		pv.Cancelled += ln.Cancelled
		pv.Before += ln.Before
		pv.Amount += ln.Amount
		pv.Off += ln.Off
		pv.Lines = append(pv.Lines, ln)
		fmt.Fprintf(h, "%s exists %d cancelled %d\n", st.NIS, ln.Exists, ln.Cancelled)
	}
	// Chunks are cut from the components to create, in order.
	n := 0
	for i := range pv.items {
		if pv.items[i].State == string(itemPending) {
			pv.items[i].Chunk = n / s.cfg.ChunkSize
			n++
		}
	}
	pv.Fingerprint = hex.EncodeToString(h.Sum(nil)[:16])
	return pv, nil, nil
}

// startOf decides the first month billed for a student who joined after the plan began:
// the roster's day of their arrival through the portal, or their first component of the
// plan (unless the selection bills earlier periods too). A one-time fee is owed whenever
// one joins: it has none.
func (s *Service) startOf(ln *Line, p Plan, sel Selection, first Month) {
	if p.Frequency == Once {
		return
	}
	st := ln.Student
	if st.Source != store.SourceSync && !st.CreatedAt.IsZero() {
		if joined := MonthOfDay(s.cfg.Clock.DayOf(st.CreatedAt)); joined > p.From {
			ln.Start, ln.StartBy = joined, JoinedRoster
		}
	}
	if !sel.Earlier && !first.IsZero() && first > p.From && (ln.Start.IsZero() || first > ln.Start) {
		ln.Start, ln.StartBy = first, JoinedFirst
	}
}

// selected reads the students of the selection from the roster, by class and name; a
// NIS the roster does not know is a problem.
func (s *Service) selected(ctx context.Context, sel Selection) ([]students.Student, problem.List, error) {
	var probs problem.List
	classes, grades, nis := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, c := range sel.Classes {
		classes[foldClass(c)] = true
	}
	for _, g := range sel.Grades {
		grades[g] = true
	}
	for _, n := range sel.NIS {
		nis[n] = true
	}
	var list []students.Student
	found := map[string]bool{}
	err := s.db.AllStudents(ctx, func(st store.Student) error {
		if nis[st.NIS] || classes[foldClass(st.Description)] || grades[Grade(st.Description)] && st.Description != "" {
			list = append(list, st)
			found[st.NIS] = true
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("plans: the students chosen: %w", err)
	}
	for _, n := range sel.NIS {
		if !found[n] {
			probs.Add(FieldNIS, "plans.err.nis_unknown", n)
		}
	}
	for _, c := range sel.Classes {
		if !slices.ContainsFunc(list, func(st students.Student) bool { return foldClass(st.Description) == foldClass(c) }) {
			probs.Add(FieldClass, "plans.err.class_empty", c)
		}
	}
	if len(list) > MaxStudents {
		probs.Add(FieldClass, "plans.err.too_many", MaxStudents)
	}
	if len(probs) > 0 {
		return nil, probs, nil
	}
	sortStudents(list)
	return list, nil, nil
}

// Item states of an apply job (internal/jobs' item states, as kept).
const (
	itemPending = "pending"
	itemSkipped = "skipped"
)
