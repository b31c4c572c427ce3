package reports

import (
	"context"

	"github.com/sekolah/portal/internal/ledger"
)

// The dashboard's figures, as the ledger defines and adds them up (internal/ledger's
// dashboard.go holds the rules: what counts as collected, outstanding, late, expired).
type (
	// Sum is an amount of rupiah and how many components make it up.
	Sum = ledger.Sum
	// Bucket is one age bucket of the outstanding amounts.
	Bucket = ledger.Bucket
	// MonthCollections is what came in during one month of the school year, per account.
	MonthCollections = ledger.MonthCollections
	// ClassArrears is the overdue amount of one class.
	ClassArrears = ledger.ClassArrears
	// StudentArrears is one student's overdue amount.
	StudentArrears = ledger.StudentArrears
	// DueGroup is the unpaid components with the same due day, name and account code.
	DueGroup = ledger.DueGroup
	// Dashboard is every figure of the principal's dashboard.
	Dashboard = ledger.Dashboard
)

// The age buckets, in the order the dashboard and the outstanding report show them.
const (
	BucketNotDue = ledger.BucketNotDue
	Bucket1to30  = ledger.Bucket1to30
	Bucket31to60 = ledger.Bucket31to60
	Bucket61to90 = ledger.Bucket61to90
	BucketOver90 = ledger.BucketOver90
	NumBuckets   = ledger.NumBuckets
)

// BucketKeys names the age buckets in order.
func BucketKeys() [NumBuckets]string { return ledger.BucketKeys() }

// Dashboard returns the dashboard of today from the ledger; refresh also asks for a sync
// now (the figures returned are the ledger's as they stand).
func (s *Service) Dashboard(ctx context.Context, refresh bool) (Result[Dashboard], error) {
	return read(ctx, s, refresh, func() (Dashboard, error) { return s.l.Dashboard(ctx) })
}
