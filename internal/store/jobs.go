package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// JobTable is a table of persisted jobs (internal/jobs): one row per job, keyed by id,
// with its lease in lease_owner and lease_until.
type JobTable string

// The tables of jobs.
const (
	UploadJobsTable     JobTable = "upload_jobs"
	CorrectionJobsTable JobTable = "correction_jobs"
)

// JobLeases are the leases of the jobs in one table (a jobs.Leases): the same statements
// as every lease (leases.go), on the job's own row.
type JobLeases struct {
	db    *DB
	table JobTable
}

// JobLeases are the leases of the jobs in table t.
func (db *DB) JobLeases(t JobTable) JobLeases { return JobLeases{db: db, table: t} }

// Kind names the jobs of the table for the metrics: the table's name without "_jobs"
// ("upload" for upload_jobs).
func (l JobLeases) Kind() string { return strings.TrimSuffix(string(l.table), "_jobs") }

// Census counts, of the jobs ids, those whose lease an instance holds at now and those
// waiting for the service (waiting_since set), in one statement (the metrics read it).
func (l JobLeases) Census(ctx context.Context, ids []string, now time.Time) (held, waiting int, err error) {
	if len(ids) == 0 {
		return 0, 0, nil
	}
	args := []any{Time(now)}
	ph := make([]string, len(ids))
	for i, id := range ids {
		args = append(args, id)
		ph[i] = "$" + strconv.Itoa(len(args))
	}
	if err := l.db.sql.QueryRowContext(ctx, `SELECT
		COUNT(CASE WHEN lease_owner <> '' AND lease_until IS NOT NULL AND lease_until >= $1 THEN 1 END),
		COUNT(waiting_since) FROM `+string(l.table)+` WHERE id IN (`+strings.Join(ph, ",")+`)`, args...).Scan(&held, &waiting); err != nil {
		return 0, 0, fmt.Errorf("store: census of %s: %w", l.table, err)
	}
	return held, waiting, nil
}

func (l JobLeases) row(id string) leaseRow {
	return leaseRow{table: string(l.table), keyColumn: "id", key: id, what: string(l.table) + " " + id}
}

// Claim takes job id's lease for owner until `until` when it is free, already owner's, or
// lapsed by `now`; it reports whether owner holds it (false for a job that does not exist).
func (l JobLeases) Claim(ctx context.Context, id, owner string, until, now time.Time) (bool, error) {
	return l.db.claimLease(ctx, l.row(id), owner, until, now)
}

// Renew extends owner's lease on job id to `until`; false when owner no longer holds it.
func (l JobLeases) Renew(ctx context.Context, id, owner string, until time.Time) (bool, error) {
	return l.db.renewLease(ctx, l.row(id), owner, until)
}

// Release frees owner's lease on job id; a lease held by another is left alone.
func (l JobLeases) Release(ctx context.Context, id, owner string) error {
	return l.db.releaseLease(ctx, l.row(id), owner)
}

// ReleaseUnlessIn frees owner's lease on job id unless the job is by now in one of states
// (its state column); the check and the release are one statement. An upload's analysis
// ends this way: the upload it read may already be committed and its lease claimed again
// by the same owner, to send it, and that lease must stay.
func (l JobLeases) ReleaseUnlessIn(ctx context.Context, id, owner string, states ...string) error {
	args := []any{id, owner}
	ph := make([]string, len(states))
	for i, s := range states {
		args = append(args, s)
		ph[i] = "$" + strconv.Itoa(len(args))
	}
	cond := ""
	if len(states) > 0 {
		cond = ` AND state NOT IN (` + strings.Join(ph, ",") + `)`
	}
	if _, err := l.db.sql.ExecContext(ctx, `UPDATE `+string(l.table)+` SET lease_owner = '', lease_until = NULL
		WHERE id = $1 AND lease_owner = $2`+cond, args...); err != nil {
		return fmt.Errorf("store: release lease of %s %s: %w", l.table, id, err)
	}
	return nil
}

// NamedLeases are the named leases (the leases table) as leases of jobs named by id: a
// piece of work that is not a row of its own table (and the jobs package's tests).
type NamedLeases struct{ db *DB }

// NamedLeases are the named leases as job leases.
func (db *DB) NamedLeases() NamedLeases { return NamedLeases{db: db} }

// Claim is ClaimLease.
func (l NamedLeases) Claim(ctx context.Context, name, owner string, until, now time.Time) (bool, error) {
	return l.db.ClaimLease(ctx, name, owner, until, now)
}

// Renew is RenewLease.
func (l NamedLeases) Renew(ctx context.Context, name, owner string, until time.Time) (bool, error) {
	return l.db.RenewLease(ctx, name, owner, until)
}

// Release is ReleaseLease.
func (l NamedLeases) Release(ctx context.Context, name, owner string) error {
	return l.db.ReleaseLease(ctx, name, owner)
}
