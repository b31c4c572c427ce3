package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// LetterBatch gives the set of letters named key count numbers of the sequence scope, once:
// the first of them, now and whenever the same key is asked again (a class's letters
// printed twice on one day carry the same numbers). The numbers are taken from the
// sequence in one atomic step; two instances racing on a new key may both take numbers,
// and the loser's stay unused (a gap, never a number given twice).
func (db *DB) LetterBatch(ctx context.Context, key, scope string, count int) (int64, error) {
	if count < 1 {
		return 0, fmt.Errorf("store: letter batch of %d", count)
	}
	var first int64
	err := db.sql.QueryRowContext(ctx, `SELECT first FROM letter_batches WHERE batch_key = $1`, key).Scan(&first)
	switch {
	case err == nil:
		return first, nil
	case !errors.Is(err, sql.ErrNoRows):
		return 0, fmt.Errorf("store: letter batch: %w", err)
	}
	now := db.Now()
	err = db.InTx(ctx, func(tx *sql.Tx) error {
		var last int64
		if err := tx.QueryRowContext(ctx, `INSERT INTO receipt_sequences (scope, last, updated_at) VALUES ($1, $2, $3)
			ON CONFLICT (scope) DO UPDATE SET last = receipt_sequences.last + excluded.last, updated_at = excluded.updated_at
			RETURNING last`, scope, int64(count), now).Scan(&last); err != nil {
			return err
		}
		first = last - int64(count) + 1
		_, err := tx.ExecContext(ctx, `INSERT INTO letter_batches (batch_key, scope, first, count, created_at)
			VALUES ($1, $2, $3, $4, $5) ON CONFLICT (batch_key) DO NOTHING`, key, scope, first, int64(count), now)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: letter batch: %w", err)
	}
	// Another instance may have written the key first: its numbers are the batch's.
	if err := db.sql.QueryRowContext(ctx, `SELECT first FROM letter_batches WHERE batch_key = $1`, key).Scan(&first); err != nil {
		return 0, fmt.Errorf("store: letter batch: %w", err)
	}
	return first, nil
}
