package plans

import (
	"context"
	"fmt"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/component"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/students"
)

// The kartu SPP: a plan's periods for the students of a class, each cell what the
// student's component of that period is today.

// CellState is what a cell of the kartu SPP shows.
type CellState string

// The states of a cell.
const (
	CellPaid      CellState = "paid"       // paid (with its day)
	CellUnpaid    CellState = "unpaid"     // billed, not yet due (or due today)
	CellLate      CellState = "late"       // past its due day, unpaid: the penalty applies
	CellExpired   CellState = "expired"    // past its expiry day, unpaid: no longer payable
	CellWaived    CellState = "waived"     // a 100% discount: nothing to pay
	CellNotBilled CellState = "not_billed" // no component (not applied, cancelled, joined later, left)
)

// Key is the catalogue key of its name ("plans.cell.paid").
func (c CellState) Key() string { return "plans.cell." + string(c) }

// Cell is one student's period: its component, or the parts it was split into
// (internal/corrections' instalments), read together.
type Cell struct {
	State CellState
	// Parts is how many components make the period (0: none; more than 1: instalments)
	// and PaidParts how many of them are paid.
	Parts, PaidParts int
	// Due is the first due day; Amount what the components ask; Paid what was paid.
	Due          time.Time
	Amount, Paid int64
	// PaidOn is the school's day of the (last) payment; Price what paying the unpaid ones
	// costs today (late: with the penalty).
	PaidOn time.Time
	Price  int64
}

// slots are the live components of a plan by "NIS|YYYY-MM": one, or the parts of a split.
func slots(comps []ledger.PlanComponent) map[string][]billing.Bill {
	out := map[string][]billing.Bill{}
	for _, c := range comps {
		if c.Bill.State != billing.StateDeleted {
			out[c.NIS+"|"+c.Period] = append(out[c.NIS+"|"+c.Period], c.Bill)
		}
	}
	return out
}

// cellOf reads a period's components on today: paid once all are, else late when one
// is, unpaid while one can be paid, expired when none can.
func (s *Service) cellOf(parts []billing.Bill, today time.Time) (c Cell, expired int64) {
	c.Parts = len(parts)
	late, payable := false, false
	for _, b := range parts {
		c.Amount += b.Amount
		if c.Due.IsZero() || b.Due.Before(c.Due) {
			c.Due = b.Due
		}
		on := component.On(b, today)
		switch on.Status {
		case component.StatusPaid:
			c.PaidParts++
			c.Paid += b.AmountPaid
			if day := s.cfg.Clock.DayOf(b.PaidAt); day.After(c.PaidOn) {
				c.PaidOn = day
			}
		case component.StatusExpired:
			expired += b.Amount
		case component.StatusOverdue:
			late = true
			c.Price += on.Price
		default:
			payable = true
			c.Price += on.Price
		}
	}
	switch {
	case c.PaidParts == c.Parts:
		c.State = CellPaid
	case late:
		c.State = CellLate
	case payable:
		c.State = CellUnpaid
	default:
		c.State = CellExpired
	}
	return c, expired
}

// CardRow is one student's line of the kartu: their cells and their totals.
type CardRow struct {
	Student students.Student
	Status  students.Status
	Cells   []Cell
	// Paid is what was paid; Owed what paying every payable cell costs today; Expired the
	// amounts no longer payable.
	Paid, Owed, Expired int64
}

// Kartu is the kartu SPP of a plan for some students.
type Kartu struct {
	Plan    Plan
	Class   string
	Periods []Period
	Rows    []CardRow
	// Today is the school's day it was read on.
	Today time.Time
	// PaidCount and BilledCount are per period (same order as Periods): how many of the
	// students paid, and were billed.
	PaidCount, BilledCount []int
	Fresh                  time.Time
}

// Kartu is the kartu SPP of plan p for the students of class (every student of the
// class, leavers too: their cells say what was billed).
func (s *Service) Kartu(ctx context.Context, p Plan, class string) (Kartu, error) {
	var list []students.Student
	err := s.db.AllStudents(ctx, func(st store.Student) error {
		if foldClass(st.Description) == foldClass(class) {
			list = append(list, st)
		}
		return nil
	})
	if err != nil {
		return Kartu{}, fmt.Errorf("plans: kartu: %w", err)
	}
	sortStudents(list)
	k, err := s.kartuOf(ctx, p, list)
	k.Class = class
	return k, err
}

// Card is the kartu SPP of plan p for one student.
func (s *Service) Card(ctx context.Context, p Plan, st students.Student) (Kartu, error) {
	k, err := s.kartuOf(ctx, p, []students.Student{st})
	k.Class = st.Description
	return k, err
}

func (s *Service) kartuOf(ctx context.Context, p Plan, list []students.Student) (Kartu, error) {
	today := s.cfg.Clock.Today()
	k := Kartu{Plan: p, Periods: p.Periods(), Today: s.cfg.Clock.Day()}
	k.PaidCount, k.BilledCount = make([]int, len(k.Periods)), make([]int, len(k.Periods))
	nis := make([]string, len(list))
	for i, st := range list {
		nis[i] = st.NIS
	}
	comps, err := s.ledger.PlanComponents(ctx, p.Code, nis)
	if err != nil {
		return k, err
	}
	live := slots(comps)
	ds, err := s.Discounts(ctx, nis)
	if err != nil {
		return k, err
	}
	byNIS := map[string][]Discount{}
	for _, d := range ds {
		byNIS[d.NIS] = append(byNIS[d.NIS], d)
	}
	for _, st := range list {
		row := CardRow{Student: st, Status: students.StatusOf(st.Status)}
		for i, pe := range k.Periods {
			var c Cell
			if parts := live[st.NIS+"|"+pe.Month.String()]; len(parts) > 0 {
				var expired int64
				c, expired = s.cellOf(parts, today)
				k.BilledCount[i]++
				row.Paid, row.Owed, row.Expired = row.Paid+c.Paid, row.Owed+c.Price, row.Expired+expired
				if c.State == CellPaid {
					k.PaidCount[i]++
				}
			} else if _, charged, d := p.charge(st.Description, pe, byNIS[st.NIS]); d != nil && charged == 0 {
				c.State = CellWaived
			} else {
				c.State = CellNotBilled
			}
			row.Cells = append(row.Cells, c)
		}
		k.Rows = append(k.Rows, row)
	}
	return k, nil
}

// ClassSummary is one class's line of a plan's overview: per period, how many of its
// students were billed and how many paid.
type ClassSummary struct {
	Class              string
	Students           int
	Billed, Paid       []int
	BilledAll, PaidAll int
	Amount, AmountPaid int64
}

// Overview is every class's summary of plan p, in the natural order of classes.
func (s *Service) Overview(ctx context.Context, p Plan) ([]ClassSummary, []Period, error) {
	periods := p.Periods()
	var list []students.Student
	if err := s.db.AllStudents(ctx, func(st store.Student) error {
		list = append(list, st)
		return nil
	}); err != nil {
		return nil, periods, fmt.Errorf("plans: overview: %w", err)
	}
	sortStudents(list)
	classOf := map[string]string{}
	for _, st := range list {
		classOf[st.NIS] = st.Description
	}
	comps, err := s.ledger.PlanComponents(ctx, p.Code, nil)
	if err != nil {
		return nil, periods, err
	}
	index := map[string]int{}
	for i, pe := range periods {
		index[pe.Month.String()] = i
	}
	var out []ClassSummary
	at := map[string]int{}
	row := func(class string) *ClassSummary {
		i, ok := at[class]
		if !ok {
			i = len(out)
			at[class] = i
			out = append(out, ClassSummary{Class: class, Billed: make([]int, len(periods)), Paid: make([]int, len(periods))})
		}
		return &out[i]
	}
	for _, st := range list {
		row(st.Description).Students++
	}
	for _, c := range comps {
		i, ok := index[c.Period]
		if !ok || c.Bill.State == billing.StateDeleted {
			continue
		}
		r := row(classOf[c.NIS])
		r.Billed[i]++
		r.BilledAll++
		r.Amount += c.Bill.Amount
		if c.Bill.State == billing.StatePaid {
			r.Paid[i]++
			r.PaidAll++
			r.AmountPaid += c.Bill.AmountPaid
		}
	}
	return out, periods, nil
}
