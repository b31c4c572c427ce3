package students

import (
	"context"
	"errors"
	"fmt"

	"github.com/sekolah/portal/internal/billing"
)

// HasPayments reports whether the student has a paid component. Such a student cannot
// be deleted: the service refuses, because the payment history is kept. This is the one
// place that answers it (the student page, the confirmation and the delete itself ask
// here), so a local ledger can answer it later without a call. An unknown student has
// none.
func HasPayments(ctx context.Context, c *billing.Client, nis string) (bool, error) {
	paid, err := c.StudentBills(ctx, nis, billing.Query{State: billing.StatePaid, Limit: 1})
	switch {
	case errors.Is(err, billing.ErrNotFound):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("students: payments of %s: %w", nis, err)
	}
	for _, b := range paid {
		if b.State == billing.StatePaid {
			return true, nil
		}
	}
	return false, nil
}
