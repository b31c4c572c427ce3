package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// CorrectionJob is a persisted correction job (00018): many components changed or
// cancelled, sent in chunks under a lease.
type CorrectionJob struct {
	ID string
	// Kind is "update" or "cancel"; Source "bulk" (the bills list) or "upload" (an undo).
	Kind, Source string
	// UploadID is the upload an undo cancels ("" otherwise): one undo per upload.
	UploadID string
	// Field and Value are what a bulk update sets (as typed, for the page); Reason a
	// cancel's reason; Selection how the components were chosen (the list's filter).
	Field, Value, Reason, Selection    string
	State                              string
	ActorID, Actor, ActorRole, ActorIP string
	// Total is the number of items; LeftOut those the selection held but the job left
	// alone (paid, cancelled); the amounts are the items' totals before and after.
	Total, LeftOut                   int
	AmountBefore, AmountAfter        int64
	Done, Failed, Skipped            int
	WaitingSince                     time.Time
	CreatedAt, UpdatedAt, FinishedAt time.Time
}

// CorrectionItem is one component of a correction job.
type CorrectionItem struct {
	JobID                               string
	Seq, Chunk                          int
	ComponentID, NIS, StudentName, Name string
	Amount                              int64
	// Payload is the values to give the component (the corrections package's JSON).
	Payload  string
	State    string
	Attempts int
	Problem  string
	// UpdatedAt is when the item last changed: for one sent without an answer, when its
	// call left or, once it ended without one, when it ended.
	UpdatedAt time.Time
}

const correctionJobCols = `id, kind, source, upload_id, field, value, reason, selection, state, actor_id, actor, actor_role,
	actor_ip, total, left_out, amount_before, amount_after, done_count, failed_count, skipped_count, waiting_since,
	created_at, updated_at, finished_at`

func scanCorrectionJob(row interface{ Scan(...any) error }) (CorrectionJob, error) {
	var j CorrectionJob
	var waiting, created, updated, finished nullTime
	err := row.Scan(&j.ID, &j.Kind, &j.Source, &j.UploadID, &j.Field, &j.Value, &j.Reason, &j.Selection, &j.State,
		&j.ActorID, &j.Actor, &j.ActorRole, &j.ActorIP, &j.Total, &j.LeftOut, &j.AmountBefore, &j.AmountAfter,
		&j.Done, &j.Failed, &j.Skipped, &waiting, &created, &updated, &finished)
	j.WaitingSince, j.CreatedAt, j.UpdatedAt, j.FinishedAt = waiting.Time, created.Time, updated.Time, finished.Time
	return j, err
}

// CreateCorrectionJob stores a job and its items in one transaction. A second job for the
// same upload is ErrConflict: an upload is undone once.
func (db *DB) CreateCorrectionJob(ctx context.Context, j CorrectionJob, items []CorrectionItem) error {
	now := db.Now()
	err := db.InTx(ctx, func(tx *sql.Tx) error { return insertCorrectionJob(ctx, tx, j, items, now) })
	if IsUniqueViolation(err) {
		return fmt.Errorf("store: correction job for upload %s: %w", j.UploadID, ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("store: create correction job: %w", err)
	}
	return nil
}

// insertCorrectionJob writes a job and its items in tx (a job made together with a record
// of its own kind, such as an instalment split, shares the transaction).
func insertCorrectionJob(ctx context.Context, tx *sql.Tx, j CorrectionJob, items []CorrectionItem, now time.Time) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO correction_jobs (id, kind, source, upload_id, field, value, reason, selection,
		state, actor_id, actor, actor_role, actor_ip, total, left_out, amount_before, amount_after, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $18)`,
		j.ID, j.Kind, j.Source, j.UploadID, j.Field, j.Value, j.Reason, j.Selection, j.State, j.ActorID, j.Actor, j.ActorRole,
		j.ActorIP, len(items), j.LeftOut, j.AmountBefore, j.AmountAfter, now); err != nil {
		return err
	}
	if err := insertCorrectionItems(ctx, tx, j.ID, items, now); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `UPDATE correction_jobs SET
		skipped_count = (SELECT COUNT(*) FROM correction_items WHERE job_id = $1 AND state = 'skipped') WHERE id = $1`, j.ID)
	return err
}

func insertCorrectionItems(ctx context.Context, tx *sql.Tx, jobID string, items []CorrectionItem, now time.Time) error {
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO correction_items (job_id, seq, chunk, component_id, nis, student_name,
		item_name, amount, payload, state, problem, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, it := range items {
		if _, err := stmt.ExecContext(ctx, jobID, it.Seq, it.Chunk, it.ComponentID, it.NIS, it.StudentName, it.Name, it.Amount,
			it.Payload, it.State, it.Problem, now); err != nil {
			return err
		}
	}
	return nil
}

// CorrectionJobByID reads one job (ErrNotFound when there is none).
func (db *DB) CorrectionJobByID(ctx context.Context, id string) (CorrectionJob, error) {
	j, err := scanCorrectionJob(db.sql.QueryRowContext(ctx, `SELECT `+correctionJobCols+` FROM correction_jobs WHERE id = $1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return j, fmt.Errorf("store: correction job %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return j, fmt.Errorf("store: correction job %s: %w", id, err)
	}
	return j, nil
}

// CorrectionJobForUpload reads the undo of an upload (ErrNotFound when it was not undone).
func (db *DB) CorrectionJobForUpload(ctx context.Context, uploadID string) (CorrectionJob, error) {
	j, err := scanCorrectionJob(db.sql.QueryRowContext(ctx, `SELECT `+correctionJobCols+` FROM correction_jobs WHERE upload_id = $1`, uploadID))
	if errors.Is(err, sql.ErrNoRows) {
		return j, fmt.Errorf("store: undo of upload %s: %w", uploadID, ErrNotFound)
	}
	if err != nil {
		return j, fmt.Errorf("store: undo of upload %s: %w", uploadID, err)
	}
	return j, nil
}

// CorrectionJobsInStates lists the jobs in any of states, oldest first.
func (db *DB) CorrectionJobsInStates(ctx context.Context, states ...string) ([]CorrectionJob, error) {
	ph := make([]string, len(states))
	args := make([]any, len(states))
	for i, s := range states {
		ph[i], args[i] = fmt.Sprintf("$%d", i+1), s
	}
	rows, err := db.sql.QueryContext(ctx, `SELECT `+correctionJobCols+` FROM correction_jobs WHERE state IN (`+strings.Join(ph, ", ")+`)
		ORDER BY created_at, id`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: correction jobs: %w", err)
	}
	defer rows.Close()
	var out []CorrectionJob
	for rows.Next() {
		j, err := scanCorrectionJob(rows)
		if err != nil {
			return nil, fmt.Errorf("store: correction jobs: %w", err)
		}
		out = append(out, j)
	}
	return out, rows.Err()
}

// CorrectionItems lists a job's items in any of states (all when none), in order.
func (db *DB) CorrectionItems(ctx context.Context, jobID string, states ...string) ([]CorrectionItem, error) {
	q := ` WHERE job_id = $1`
	args := []any{jobID}
	if len(states) > 0 {
		ph := make([]string, len(states))
		for i, s := range states {
			ph[i] = fmt.Sprintf("$%d", i+2)
			args = append(args, s)
		}
		q += ` AND state IN (` + strings.Join(ph, ", ") + `)`
	}
	return db.correctionItems(ctx, jobID, q, args...)
}

// CorrectionChunk lists the items of one chunk of a job, in order.
func (db *DB) CorrectionChunk(ctx context.Context, jobID string, chunk int) ([]CorrectionItem, error) {
	return db.correctionItems(ctx, jobID, ` WHERE job_id = $1 AND chunk = $2`, jobID, chunk)
}

func (db *DB) correctionItems(ctx context.Context, jobID, where string, args ...any) ([]CorrectionItem, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT job_id, seq, chunk, component_id, nis, student_name, item_name, amount, payload,
		state, attempts, problem, updated_at FROM correction_items`+where+` ORDER BY seq`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: correction items of %s: %w", jobID, err)
	}
	defer rows.Close()
	var out []CorrectionItem
	for rows.Next() {
		var it CorrectionItem
		var updated nullTime
		if err := rows.Scan(&it.JobID, &it.Seq, &it.Chunk, &it.ComponentID, &it.NIS, &it.StudentName, &it.Name, &it.Amount,
			&it.Payload, &it.State, &it.Attempts, &it.Problem, &updated); err != nil {
			return nil, fmt.Errorf("store: correction items of %s: %w", jobID, err)
		}
		it.UpdatedAt = updated.Time
		out = append(out, it)
	}
	return out, rows.Err()
}

// CorrectionOpenChunks lists the chunks of a job that still have items pending or sent,
// in order.
func (db *DB) CorrectionOpenChunks(ctx context.Context, jobID string) ([]int, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT DISTINCT chunk FROM correction_items WHERE job_id = $1
		AND state IN ('pending', 'sent') ORDER BY chunk`, jobID)
	if err != nil {
		return nil, fmt.Errorf("store: open chunks of correction job %s: %w", jobID, err)
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var n int64
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("store: open chunks of correction job %s: %w", jobID, err)
		}
		out = append(out, int(n))
	}
	return out, rows.Err()
}

// SetCorrectionItems moves the items seqs of a job to state with problem, as of at, and
// the job's counts with them. An item moving to sent counts an attempt (its call is about
// to leave); one noted sent again keeps its count and takes the new time (its call ended
// without an answer then: it may still land for a while).
func (db *DB) SetCorrectionItems(ctx context.Context, jobID string, seqs []int, state, problem string, at time.Time) error {
	if len(seqs) == 0 {
		return nil
	}
	now := db.Now()
	err := db.InTx(ctx, func(tx *sql.Tx) error {
		ph := make([]string, len(seqs))
		args := []any{state, problem, Time(at), jobID}
		for i, s := range seqs {
			ph[i] = fmt.Sprintf("$%d", i+5)
			args = append(args, s)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE correction_items SET state = $1, problem = $2, updated_at = $3,
			attempts = attempts + CASE WHEN $1 = 'sent' AND state <> 'sent' THEN 1 ELSE 0 END
			WHERE job_id = $4 AND seq IN (`+strings.Join(ph, ", ")+`)`, args...); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE correction_jobs SET updated_at = $2,
			done_count = (SELECT COUNT(*) FROM correction_items WHERE job_id = $1 AND state = 'done'),
			failed_count = (SELECT COUNT(*) FROM correction_items WHERE job_id = $1 AND state = 'failed'),
			skipped_count = (SELECT COUNT(*) FROM correction_items WHERE job_id = $1 AND state = 'skipped')
			WHERE id = $1`, jobID, now)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: correction items of %s: %w", jobID, err)
	}
	return nil
}

// SetCorrectionJobState moves the job to state; a finished job gets its finishing time.
func (db *DB) SetCorrectionJobState(ctx context.Context, id, state string, finished bool) error {
	now := db.Now()
	var fin any
	if finished {
		fin = now
	}
	if _, err := db.sql.ExecContext(ctx, `UPDATE correction_jobs SET state = $2, updated_at = $3, finished_at = COALESCE(finished_at, $4),
		waiting_since = NULL WHERE id = $1`, id, state, now, fin); err != nil {
		return fmt.Errorf("store: correction job %s: %w", id, err)
	}
	return nil
}

// SetCorrectionWaiting records since when the job waits for the service (zero: it answers).
func (db *DB) SetCorrectionWaiting(ctx context.Context, id string, since time.Time) error {
	if _, err := db.sql.ExecContext(ctx, `UPDATE correction_jobs SET waiting_since = $2 WHERE id = $1`, id, nullable(since)); err != nil {
		return fmt.Errorf("store: correction job %s: %w", id, err)
	}
	return nil
}

// AddUploadCreated records components an upload job created (a confirmed chunk's, or a
// reconciled one's); recording one twice is harmless.
func (db *DB) AddUploadCreated(ctx context.Context, jobID string, componentIDs []string) error {
	if len(componentIDs) == 0 {
		return nil
	}
	err := db.InTx(ctx, func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO upload_created (job_id, component_id) VALUES ($1, $2)
			ON CONFLICT (job_id, component_id) DO NOTHING`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, id := range componentIDs {
			if _, err := stmt.ExecContext(ctx, jobID, id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: components created by upload %s: %w", jobID, err)
	}
	return nil
}

// UploadCreated lists the components an upload job created, in id order.
func (db *DB) UploadCreated(ctx context.Context, jobID string) ([]string, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT component_id FROM upload_created WHERE job_id = $1 ORDER BY component_id`, jobID)
	if err != nil {
		return nil, fmt.Errorf("store: components created by upload %s: %w", jobID, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("store: components created by upload %s: %w", jobID, err)
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// UploadCreatedComponent is a component an upload created, as the ledger holds it now.
type UploadCreatedComponent struct {
	ID, NIS, StudentName, Name string
	Amount, AmountPaid         int64
	// Kind is the ledger's: 0 open (unpaid), 1 paid, 2 deleted; -1 when the ledger does
	// not hold it yet.
	Kind int
}

// UploadCreatedComponents lists the components an upload created with their state in
// the ledger, by student and name.
func (db *DB) UploadCreatedComponents(ctx context.Context, jobID string) ([]UploadCreatedComponent, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT u.component_id, COALESCE(c.nis, ''), COALESCE(c.student_name, ''),
		COALESCE(c.name, ''), COALESCE(c.amount, 0), COALESCE(c.amount_paid, 0), COALESCE(c.kind, -1)
		FROM upload_created u LEFT JOIN ledger_components c ON c.id = u.component_id
		WHERE u.job_id = $1 ORDER BY c.nis, c.name, u.component_id`, jobID)
	if err != nil {
		return nil, fmt.Errorf("store: components created by upload %s: %w", jobID, err)
	}
	defer rows.Close()
	var out []UploadCreatedComponent
	for rows.Next() {
		var c UploadCreatedComponent
		if err := rows.Scan(&c.ID, &c.NIS, &c.StudentName, &c.Name, &c.Amount, &c.AmountPaid, &c.Kind); err != nil {
			return nil, fmt.Errorf("store: components created by upload %s: %w", jobID, err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}
