package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// InstalmentSplit is one component split into instalments (00050): the split's job, the
// undo's job once undone, and whether the split made nothing (Void: it may be split again).
type InstalmentSplit struct {
	OriginalID, NIS, Name string
	Amount                int64
	Parts                 int
	JobID, UndoJobID      string
	Void                  bool
	CreatedAt, UpdatedAt  time.Time
}

const instalmentSplitCols = `original_id, nis, name, amount, parts, job_id, undo_job_id, void, created_at, updated_at`

func scanInstalmentSplit(row interface{ Scan(...any) error }) (InstalmentSplit, error) {
	var s InstalmentSplit
	var created, updated nullTime
	err := row.Scan(&s.OriginalID, &s.NIS, &s.Name, &s.Amount, &s.Parts, &s.JobID, &s.UndoJobID, &s.Void, &created, &updated)
	s.CreatedAt, s.UpdatedAt = created.Time, updated.Time
	return s, err
}

// CreateSplitJob records the split s with its correction job j and items, in one
// transaction. A component already split (by a split that made something) is ErrConflict.
func (db *DB) CreateSplitJob(ctx context.Context, s InstalmentSplit, j CorrectionJob, items []CorrectionItem) error {
	err := db.claimSplit(ctx, `INSERT INTO instalment_splits (`+instalmentSplitCols+`)
		VALUES ($1, $2, $3, $4, $5, $6, '', FALSE, $7, $7)
		ON CONFLICT (original_id) DO UPDATE SET nis = excluded.nis, name = excluded.name, amount = excluded.amount,
			parts = excluded.parts, job_id = excluded.job_id, undo_job_id = '', void = FALSE, updated_at = excluded.updated_at
		WHERE instalment_splits.void`, s, j, items)
	if err != nil {
		return fmt.Errorf("store: split %s into instalments: %w", s.OriginalID, err)
	}
	return nil
}

// CreateSplitUndoJob records the undo of the split of s.OriginalID with its job j and
// items, in one transaction; a split known only from the service's records (the portal's
// database made anew) gets its row here. A split already undone (or being undone), or one
// that made nothing, is ErrConflict.
func (db *DB) CreateSplitUndoJob(ctx context.Context, s InstalmentSplit, j CorrectionJob, items []CorrectionItem) error {
	err := db.claimSplit(ctx, `INSERT INTO instalment_splits (`+instalmentSplitCols+`)
		VALUES ($1, $2, $3, $4, $5, '', $6, FALSE, $7, $7)
		ON CONFLICT (original_id) DO UPDATE SET undo_job_id = excluded.undo_job_id, updated_at = excluded.updated_at
		WHERE instalment_splits.undo_job_id = '' AND NOT instalment_splits.void`, s, j, items)
	if err != nil {
		return fmt.Errorf("store: undo the instalments of %s: %w", s.OriginalID, err)
	}
	return nil
}

// claimSplit runs upsert (the split's row: $1–$5 its fields, $6 the job, $7 now), which
// touches no row when the split is not free, and stores the job in the same transaction.
func (db *DB) claimSplit(ctx context.Context, upsert string, s InstalmentSplit, j CorrectionJob, items []CorrectionItem) error {
	now := db.Now()
	return db.InTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, upsert, s.OriginalID, s.NIS, s.Name, s.Amount, s.Parts, j.ID, now)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return errors.Join(err, ErrConflict)
		}
		return insertCorrectionJob(ctx, tx, j, items, now)
	})
}

// InstalmentSplits lists the splits of student nis, newest first.
func (db *DB) InstalmentSplits(ctx context.Context, nis string) ([]InstalmentSplit, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT `+instalmentSplitCols+` FROM instalment_splits WHERE nis = $1
		ORDER BY created_at DESC, original_id`, nis)
	if err != nil {
		return nil, fmt.Errorf("store: instalment splits of %s: %w", nis, err)
	}
	defer rows.Close()
	var out []InstalmentSplit
	for rows.Next() {
		s, err := scanInstalmentSplit(rows)
		if err != nil {
			return nil, fmt.Errorf("store: instalment splits of %s: %w", nis, err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// InstalmentSplitOf is the split of component originalID (ErrNotFound when there is none).
func (db *DB) InstalmentSplitOf(ctx context.Context, originalID string) (InstalmentSplit, error) {
	s, err := scanInstalmentSplit(db.sql.QueryRowContext(ctx, `SELECT `+instalmentSplitCols+` FROM instalment_splits
		WHERE original_id = $1`, originalID))
	if errors.Is(err, sql.ErrNoRows) {
		return s, fmt.Errorf("store: instalment split %s: %w", originalID, ErrNotFound)
	}
	if err != nil {
		return s, fmt.Errorf("store: instalment split %s: %w", originalID, err)
	}
	return s, nil
}

// EndInstalmentJob records that the split or undo job jobID made nothing at the service:
// a split's component may then be split again, an undone split undone again.
func (db *DB) EndInstalmentJob(ctx context.Context, jobID string) error {
	now := db.Now()
	err := db.InTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE instalment_splits SET void = TRUE, updated_at = $2 WHERE job_id = $1`, jobID, now); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE instalment_splits SET undo_job_id = '', updated_at = $2 WHERE undo_job_id = $1`, jobID, now)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: end instalment job %s: %w", jobID, err)
	}
	return nil
}

// AddCorrectionItems adds items to a job that is running (a replacement's step decided
// on the way, such as cancelling again what it made), and counts them in its total.
func (db *DB) AddCorrectionItems(ctx context.Context, jobID string, items []CorrectionItem) error {
	now := db.Now()
	err := db.InTx(ctx, func(tx *sql.Tx) error {
		if err := insertCorrectionItems(ctx, tx, jobID, items, now); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE correction_jobs SET updated_at = $2,
			total = (SELECT COUNT(*) FROM correction_items WHERE job_id = $1) WHERE id = $1`, jobID, now)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: add items to correction job %s: %w", jobID, err)
	}
	return nil
}

// SetCorrectionItemComponent records the component item seq of a job made at the service
// (the id the service gave it).
func (db *DB) SetCorrectionItemComponent(ctx context.Context, jobID string, seq int, componentID string) error {
	if _, err := db.sql.ExecContext(ctx, `UPDATE correction_items SET component_id = $3 WHERE job_id = $1 AND seq = $2`,
		jobID, seq, componentID); err != nil {
		return fmt.Errorf("store: correction item %s/%d: %w", jobID, seq, err)
	}
	return nil
}
