package reports

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/component"
)

// StatementRow is one component of a student's statement. DueToday is what paying it
// would cost today; Running adds them up row by row, so the last row's Running is what
// the student owes today.
type StatementRow struct {
	Due       time.Time
	Expiry    time.Time
	Component string
	Account   string
	Amount    int64
	Penalty   int64
	Status    component.Status
	PaidAt    time.Time
	Paid      int64
	Ref       string
	DueToday  int64
	Running   int64
}

// Statement is every component of one student, paid and unpaid, by due day.
type Statement struct {
	NIS    string
	Name   string
	Class  string
	Today  time.Time
	Rows   []StatementRow
	Amount int64 // sum of the components' amounts
	Paid   int64
	Owed   int64 // sum of DueToday
}

// computeStatement reads one student's components from the ledger; a student has a few
// dozen, so they are sorted in memory. billing.ErrNotFound means neither the roster nor
// the ledger knows the NIS.
func (s *Service) computeStatement(ctx context.Context, nis string) (Statement, error) {
	nis = strings.TrimSpace(nis)
	today := s.Today()
	st := Statement{NIS: nis, Today: today}
	var bills []billing.Bill
	for b, err := range s.l.AllForStudent(ctx, nis, billing.Query{}) {
		if err != nil {
			return Statement{}, fmt.Errorf("reports: statement %s: %w", nis, err)
		}
		bills = append(bills, b)
	}
	if s.roster != nil {
		found, err := s.roster.StudentsByNIS(ctx, []string{nis})
		if err != nil {
			return Statement{}, fmt.Errorf("reports: statement %s: %w", nis, err)
		}
		st.Name, st.Class = found[nis].Name, found[nis].Description
	}
	if st.Name == "" && len(bills) > 0 {
		st.Name = bills[0].StudentName
	}
	slices.SortFunc(bills, func(a, b billing.Bill) int {
		return cmp.Or(a.Due.Compare(b.Due), cmp.Compare(a.Name, b.Name), cmp.Compare(a.ComponentID, b.ComponentID))
	})
	for _, b := range bills {
		c := component.On(b, today)
		r := StatementRow{
			Due: b.Due.UTC(), Expiry: b.Expiry.UTC(), Component: b.Name, Account: b.AccountCode,
			Amount: b.Amount, Penalty: b.Penalty, Status: c.Status, PaidAt: b.PaidAt,
			Paid: b.AmountPaid, Ref: b.RefNumber, DueToday: c.Price,
		}
		st.Amount += r.Amount
		st.Paid += r.Paid
		st.Owed += r.DueToday
		r.Running = st.Owed
		st.Rows = append(st.Rows, r)
	}
	return st, nil
}

// Statement returns the statement of nis from the ledger; refresh also asks for a sync
// now.
func (s *Service) Statement(ctx context.Context, nis string, refresh bool) (Result[Statement], error) {
	return read(ctx, s, refresh, func() (Statement, error) { return s.computeStatement(ctx, nis) })
}
