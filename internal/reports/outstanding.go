package reports

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/sekolah/portal/internal/billing"
)

// OutstandingFilter selects unpaid, payable components: of one class (NoClass: students
// without one), one account code, and due between DueFrom and DueTo (each optional).
type OutstandingFilter struct {
	Class          string
	Account        string
	DueFrom, DueTo time.Time
}

// Check validates the due range.
func (f OutstandingFilter) Check() error {
	if !f.DueFrom.IsZero() && !f.DueTo.IsZero() && f.DueTo.Before(f.DueFrom) {
		return ErrBadRange
	}
	return nil
}

func (f OutstandingFilter) key() string {
	return f.Class + "|" + f.Account + "|" + dayKey(f.DueFrom) + "|" + dayKey(f.DueTo)
}

func dayKey(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.DateOnly)
}

// OutstandingRow is one student's unpaid components by age: what paying them would cost
// today, per bucket and in total (Penalty is the part of Total that is penalties).
type OutstandingRow struct {
	NIS       string
	Name      string
	Class     string
	Count     int
	Buckets   [NumBuckets]int64
	Penalty   int64
	Total     int64
	OldestDue time.Time
}

func (r *OutstandingRow) addRow(o OutstandingRow) {
	r.Count += o.Count
	for i := range r.Buckets {
		r.Buckets[i] += o.Buckets[i]
	}
	r.Penalty += o.Penalty
	r.Total += o.Total
}

// OutstandingReport is the students who owe, by class then name, and the totals.
type OutstandingReport struct {
	Filter OutstandingFilter
	Today  time.Time
	Rows   []OutstandingRow
	Total  OutstandingRow
}

// computeOutstanding groups the unpaid, payable components by student. It holds one row
// per student, never the components.
func (s *Service) computeOutstanding(ctx context.Context, f OutstandingFilter, today time.Time, people People) (OutstandingReport, error) {
	if err := f.Check(); err != nil {
		return OutstandingReport{}, err
	}
	rep := OutstandingReport{Filter: f, Today: today}
	q := billing.Query{State: billing.StateProvisioned, AccountCode: f.Account, DueFrom: f.DueFrom, DueTo: f.DueTo, Limit: billing.MaxLimit}
	byNIS := map[string]*OutstandingRow{}
	todayN := dayNum(today)
	for b, err := range s.src.All(ctx, q) {
		if err != nil {
			return OutstandingReport{}, fmt.Errorf("reports: outstanding: %w", err)
		}
		due := b.DueToday(today)
		if b.State == billing.StatePaid || due == 0 {
			continue
		}
		// Defensive: the service filtered already; keep the filter's meaning exact.
		if f.Account != "" && b.AccountCode != f.Account ||
			!f.DueFrom.IsZero() && b.Due.Before(f.DueFrom) || !f.DueTo.IsZero() && b.Due.After(f.DueTo) {
			continue
		}
		pe := people.person(b)
		if !classMatches(f.Class, pe.Class) {
			continue
		}
		r := byNIS[b.NIS]
		if r == nil {
			r = &OutstandingRow{NIS: b.NIS, Name: pe.Name, Class: pe.Class, OldestDue: b.Due.UTC()}
			byNIS[b.NIS] = r
		}
		r.Count++
		r.Buckets[bucketOf(todayN-dayNum(b.Due.UTC()))] += due
		r.Penalty += due - b.Amount
		r.Total += due
		if b.Due.Before(r.OldestDue) {
			r.OldestDue = b.Due.UTC()
		}
	}
	rep.Rows = make([]OutstandingRow, 0, len(byNIS))
	for _, r := range byNIS {
		rep.Rows = append(rep.Rows, *r)
		rep.Total.addRow(*r)
	}
	slices.SortFunc(rep.Rows, func(a, b OutstandingRow) int {
		// Students without a class last.
		return cmp.Or(cmp.Compare(noClassLast(a.Class), noClassLast(b.Class)), cmp.Compare(a.Class, b.Class),
			cmp.Compare(a.Name, b.Name), cmp.Compare(a.NIS, b.NIS))
	})
	return rep, nil
}

// Outstanding returns the outstanding report of f for the screen, from cache when fresh.
func (s *Service) Outstanding(ctx context.Context, f OutstandingFilter, refresh bool) (Cached[OutstandingReport], error) {
	if err := f.Check(); err != nil {
		return Cached[OutstandingReport]{}, err
	}
	today := s.Today()
	key := "outstanding|" + today.Format(time.DateOnly) + "|" + f.key()
	return get(ctx, s.cache, key, refresh, func(ctx context.Context) (OutstandingReport, error) {
		people, err := loadPeople(ctx, s.roster)
		if err != nil {
			return OutstandingReport{}, err
		}
		return s.computeOutstanding(ctx, f, today, people)
	})
}

// noClassLast sorts students without a class after the others.
func noClassLast(class string) int {
	if class == "" {
		return 1
	}
	return 0
}
