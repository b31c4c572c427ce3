package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/sekolah/portal/internal/store"
)

// Run is one sync run as every instance sees it (migration 00016): the admins' data page
// lists them, and the students page shows the last one.
type Run struct {
	ID       string
	Kind     string // RunFill, RunIncremental or RunReconcile
	Instance string // the lease owner that ran it
	AskedBy  string // the person who asked for it ('' : the schedule)
	Start    time.Time
	End      time.Time // zero while it runs (or when its instance died mid-run)
	OK       bool
	Problem  string // one of the Problem constants when it failed
	Error    string // the failure, for admins
	Calls    int
	// What it changed.
	NewComponents     int
	ChangedComponents int
	Students          int // roster entries added or changed
	Removed           int // roster entries the service no longer lists
	LookedUp          int // components a walk did not meet, asked for one by one
	Corrected         int // differences a reconcile corrected (each audited)
	Callbacks         int // components an old callback had marked paid, corrected from the service
}

// Took is how long the run took (0 while it runs).
func (r Run) Took() time.Duration {
	if r.End.IsZero() {
		return 0
	}
	return r.End.Sub(r.Start)
}

// Changed is how many things the run changed in the ledger and the roster.
func (r Run) Changed() int {
	return r.NewComponents + r.ChangedComponents + r.Students + r.Removed + r.Corrected + r.Callbacks
}

// keepRuns is how many runs of each kind are kept: a day of incremental syncs is 1,440
// rows, and the page shows the last few; reconciles, a few months of nights.
const keepRuns = 100

// startRun records that a run began and returns its id.
func (l *Ledger) startRun(ctx context.Context, kind, instance, askedBy string, start time.Time) (string, error) {
	id := store.NewID()
	if _, err := l.sql.ExecContext(ctx, `INSERT INTO ledger_runs (id, kind, instance, asked_by, started_at) VALUES ($1, $2, $3, $4, $5)`,
		id, kind, instance, askedBy, store.Time(start)); err != nil {
		return "", fmt.Errorf("ledger: record run: %w", err)
	}
	return id, nil
}

// endRun records how run id ended and drops the oldest runs of its kind beyond keepRuns.
func (l *Ledger) endRun(ctx context.Context, id string, r RunResult, problem, msg string) error {
	ok := 0
	if problem == "" {
		ok = 1
	}
	err := l.db.InTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE ledger_runs SET ended_at = $1, ok = $2, problem = $3, error = $4, calls = $5,
			new_components = $6, changed_components = $7, students = $8, removed = $9, looked_up = $10, corrected = $11,
			callbacks = $12 WHERE id = $13`,
			store.Time(r.End), ok, problem, msg, r.Calls, r.Components.Inserted+r.Payments.Inserted,
			r.Components.Updated+r.Payments.Updated, r.Students, r.Removed, r.Missing, r.Corrected, r.Callbacks, id); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM ledger_runs WHERE kind = $1 AND id NOT IN
			(SELECT id FROM ledger_runs WHERE kind = $1 ORDER BY started_at DESC, id DESC LIMIT $2)`, r.Kind, keepRuns)
		return err
	})
	if err != nil {
		return fmt.Errorf("ledger: record run: %w", err)
	}
	return nil
}

const runColumns = `id, kind, instance, asked_by, started_at, ended_at, ok, problem, error, calls, new_components,
	changed_components, students, removed, looked_up, corrected, callbacks`

func scanRun(sc interface{ Scan(...any) error }) (Run, error) {
	var r Run
	var start, end nullTime
	var ok, calls, nc, cc, st, rm, lu, co, cb int64
	if err := sc.Scan(&r.ID, &r.Kind, &r.Instance, &r.AskedBy, &start, &end, &ok, &r.Problem, &r.Error, &calls,
		&nc, &cc, &st, &rm, &lu, &co, &cb); err != nil {
		return Run{}, err
	}
	r.Start, r.End, r.OK = start.t, end.t, ok == 1
	r.Calls, r.NewComponents, r.ChangedComponents, r.Students = int(calls), int(nc), int(cc), int(st)
	r.Removed, r.LookedUp, r.Corrected, r.Callbacks = int(rm), int(lu), int(co), int(cb)
	return r, nil
}

// Runs lists the latest runs, newest first (at most limit; 0: 20), of one kind or of
// every kind ("").
func (l *Ledger) Runs(ctx context.Context, kind string, limit int) ([]Run, error) {
	if limit <= 0 {
		limit = 20
	}
	var w where
	if kind != "" {
		w.add("kind = ?", kind)
	}
	rows, err := l.sql.QueryContext(ctx, `SELECT `+runColumns+` FROM ledger_runs`+w.sql()+
		` ORDER BY started_at DESC, id DESC LIMIT `+w.arg(limit), w.args...)
	if err != nil {
		return nil, fmt.Errorf("ledger: runs: %w", err)
	}
	defer rows.Close()
	var out []Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, fmt.Errorf("ledger: runs: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// LastRun is the latest run of kind (ok false when there has been none); with finished,
// the latest that has ended.
func (l *Ledger) LastRun(ctx context.Context, kind string, finished bool) (Run, bool, error) {
	q := `SELECT ` + runColumns + ` FROM ledger_runs WHERE kind = $1`
	if finished {
		q += ` AND ended_at IS NOT NULL`
	}
	r, err := scanRun(l.sql.QueryRowContext(ctx, q+` ORDER BY started_at DESC, id DESC LIMIT 1`, kind))
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return Run{}, false, nil
	case err != nil:
		return Run{}, false, fmt.Errorf("ledger: last %s run: %w", kind, err)
	}
	return r, true, nil
}

// askSeq is how many requests to sync or reconcile now have been made so far.
func (l *Ledger) askSeq(ctx context.Context) (int64, error) {
	var n int64
	if err := l.sql.QueryRowContext(ctx, `SELECT ask_seq FROM ledger_state WHERE name = 'ledger'`).Scan(&n); err != nil {
		return 0, fmt.Errorf("ledger: sync state: %w", err)
	}
	return n, nil
}
