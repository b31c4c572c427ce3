package plans

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/students"
)

// DiscountLine is one charge a discount lowered: who, which fee, the full price, what the
// discount took off and what is charged (what the component asks at the service; 0 and
// Waived when a 100% discount made none), and the discount.
type DiscountLine struct {
	Student  students.Student
	Plan     Plan
	Period   Period
	Discount Discount
	// Full is the period's price before the discount; Charged what the component asks;
	// Off the difference.
	Full, Off, Charged int64
	Waived             bool
	// Paid: the component is paid.
	Paid bool
}

// DiscountLines are the charges the students' discounts lowered, over every plan (the
// students of class only, when class is set), by class, student, plan and period; and
// how many components a discount covers that still ask the full price (made before the
// discount, its correction not sent).
func (s *Service) DiscountLines(ctx context.Context, class string) ([]DiscountLine, int, error) {
	ds, err := s.Discounts(ctx, nil)
	if err != nil || len(ds) == 0 {
		return nil, 0, err
	}
	byNIS := map[string][]Discount{}
	var nis []string
	for _, d := range ds {
		if _, seen := byNIS[d.NIS]; !seen {
			nis = append(nis, d.NIS)
		}
		byNIS[d.NIS] = append(byNIS[d.NIS], d)
	}
	roster, err := s.db.StudentsByNIS(ctx, nis)
	if err != nil {
		return nil, 0, err
	}
	if class != "" {
		nis = slices.DeleteFunc(nis, func(n string) bool { return foldClass(roster[n].Description) != foldClass(class) })
	}
	all, err := s.Plans(ctx)
	if err != nil {
		return nil, 0, err
	}
	var lines []DiscountLine
	pending := 0
	for _, p := range all {
		comps, err := s.ledger.PlanComponents(ctx, p.Code, nis)
		if err != nil {
			return nil, 0, err
		}
		live := slots(comps)
		for _, n := range nis {
			st, ok := roster[n]
			if !ok {
				st = students.Student{NIS: n}
			}
			for _, pe := range p.Periods() {
				full, charged, d := p.charge(st.Description, pe, byNIS[n])
				if d == nil {
					continue
				}
				ln := DiscountLine{Student: st, Plan: p, Period: pe, Discount: *d, Full: full}
				// A period split into instalments asks what its parts ask together.
				parts := live[n+"|"+pe.Month.String()]
				var asked int64
				paid := len(parts) > 0
				for _, b := range parts {
					asked += b.Amount
					paid = paid && b.State == billing.StatePaid
					if ln.Student.Name == "" {
						ln.Student.Name = b.StudentName
					}
				}
				billed := len(parts) > 0
				switch {
				case billed && asked < full:
					ln.Charged, ln.Off, ln.Paid = asked, full-asked, paid
				case billed:
					pending++
					continue
				case charged == 0:
					ln.Off, ln.Waived = full, true
				default:
					continue // not billed yet: nothing lowered
				}
				lines = append(lines, ln)
			}
		}
	}
	slices.SortStableFunc(lines, func(a, b DiscountLine) int {
		return cmp.Or(i18n.CompareNatural(a.Student.Description, b.Student.Description), strings.Compare(a.Student.Name, b.Student.Name),
			strings.Compare(a.Student.NIS, b.Student.NIS), strings.Compare(a.Plan.Name, b.Plan.Name), int(a.Period.Month-b.Period.Month))
	})
	return lines, pending, nil
}
