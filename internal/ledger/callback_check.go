package ledger

import (
	"context"
	"fmt"
)

// maxCallbackRowChecks bounds how many components one incremental sync asks the service
// about in checkCallbackRows.
const maxCallbackRowChecks = 100

// checkCallbackRows asks the service about the components the ledger holds as paid with
// no record of the service behind them (no updated_at): what a payment callback marked
// paid as it came, before callbacks were confirmed with the service. A forged body's rows
// were such rows, and no incremental sync read them again (a sync reads new components
// and the recent payments, and the service had neither). Each is read on its own
// (GetComponent: they are a handful, of any students, and each is wanted whatever its
// state) and the service's record written over it (a record with the service's time
// replaces one without, see supersedes), each correction audited; one the service does
// not know is marked deleted. Rows written since callbacks are confirmed are always the
// service's own records, so after the first sync there is nothing left to ask.
func (s *Syncer) checkCallbackRows(ctx context.Context, r *RunResult) error {
	ids, err := s.l.callbackPaidRows(ctx, maxCallbackRowChecks)
	if err != nil || len(ids) == 0 {
		return err
	}
	before := r.Corrected
	if err := s.lookUp(ctx, ids, r, &auditor{l: s.l}); err != nil {
		return fmt.Errorf("components paid by callbacks: %w", err)
	}
	r.Callbacks += r.Corrected - before
	if left, err := s.l.callbackPaidRows(ctx, 1); err == nil && len(left) > 0 && r.Callbacks == 0 {
		s.log.Warn("ledger: components paid by old callbacks stay unconfirmed: the service's records of them carry no updated_at",
			"checked", len(ids))
	}
	return nil
}

// callbackPaidRows lists up to limit components the ledger holds as paid without an
// updated_at of the service (migration 00031's index).
func (l *Ledger) callbackPaidRows(ctx context.Context, limit int) ([]string, error) {
	rows, err := l.sql.QueryContext(ctx, `SELECT id FROM ledger_components WHERE kind = 1 AND updated_us = 0 ORDER BY id LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("ledger: components paid by callbacks: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("ledger: components paid by callbacks: %w", err)
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}
