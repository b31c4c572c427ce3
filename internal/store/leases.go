package store

import (
	"context"
	"fmt"
	"time"
)

// A lease says which portal instance does a piece of work that must run once across
// instances sharing the database: an upload job (a row of upload_jobs, 00005) or a named
// background task such as the ledger's sync (a row of leases, 00007). Both keep the same
// two columns, lease_owner ('' when free) and lease_until (when it lapses unless
// renewed), and the same three statements below, so an instance that dies leaves work
// that another takes up once the lease lapses.

// leaseRow names the row a lease lives on: its table, key column and key.
type leaseRow struct {
	table, keyColumn, key string
	what                  string // for error texts, e.g. "upload job 0190…"
}

// claim takes the lease for owner until `until` when it is free, already owner's, or
// lapsed by `now`; it reports whether owner holds it. The check and the write are one
// statement, so two instances cannot both win.
func (db *DB) claimLease(ctx context.Context, l leaseRow, owner string, until, now time.Time) (bool, error) {
	res, err := db.sql.ExecContext(ctx, `UPDATE `+l.table+` SET lease_owner = $1, lease_until = $2
		WHERE `+l.keyColumn+` = $3 AND (lease_owner = '' OR lease_owner = $1 OR lease_until IS NULL OR lease_until < $4)`,
		owner, Time(until), l.key, Time(now))
	if err != nil {
		return false, fmt.Errorf("store: claim %s: %w", l.what, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("store: claim %s: %w", l.what, err)
	}
	return n == 1, nil
}

// renewLease extends owner's lease to `until`; false when owner no longer holds it.
func (db *DB) renewLease(ctx context.Context, l leaseRow, owner string, until time.Time) (bool, error) {
	res, err := db.sql.ExecContext(ctx, `UPDATE `+l.table+` SET lease_until = $1 WHERE `+l.keyColumn+` = $2 AND lease_owner = $3`,
		Time(until), l.key, owner)
	if err != nil {
		return false, fmt.Errorf("store: renew lease of %s: %w", l.what, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("store: renew lease of %s: %w", l.what, err)
	}
	return n == 1, nil
}

// releaseLease frees owner's lease; a lease held by another is left alone.
func (db *DB) releaseLease(ctx context.Context, l leaseRow, owner string) error {
	if _, err := db.sql.ExecContext(ctx, `UPDATE `+l.table+` SET lease_owner = '', lease_until = NULL
		WHERE `+l.keyColumn+` = $1 AND lease_owner = $2`, l.key, owner); err != nil {
		return fmt.Errorf("store: release lease of %s: %w", l.what, err)
	}
	return nil
}

func namedLease(name string) leaseRow {
	return leaseRow{table: "leases", keyColumn: "name", key: name, what: "lease " + name}
}

// ClaimLease takes the named lease for owner until `until` when it is free, already
// owner's, or lapsed by `now`; it reports whether owner holds it. A name not seen before
// is created free first.
func (db *DB) ClaimLease(ctx context.Context, name, owner string, until, now time.Time) (bool, error) {
	if _, err := db.sql.ExecContext(ctx, `INSERT INTO leases (name) VALUES ($1) ON CONFLICT (name) DO NOTHING`, name); err != nil {
		return false, fmt.Errorf("store: lease %s: %w", name, err)
	}
	return db.claimLease(ctx, namedLease(name), owner, until, now)
}

// RenewLease extends owner's named lease to `until`; false when owner no longer holds it
// (it lapsed and another instance took it).
func (db *DB) RenewLease(ctx context.Context, name, owner string, until time.Time) (bool, error) {
	return db.renewLease(ctx, namedLease(name), owner, until)
}

// ReleaseLease frees owner's named lease; a lease held by another is left alone.
func (db *DB) ReleaseLease(ctx context.Context, name, owner string) error {
	return db.releaseLease(ctx, namedLease(name), owner)
}

// LeaseHolder reports who holds the named lease and until when ("" when free or lapsed by now).
func (db *DB) LeaseHolder(ctx context.Context, name string, now time.Time) (string, time.Time, error) {
	var owner string
	var until nullTime
	err := db.sql.QueryRowContext(ctx, `SELECT lease_owner, lease_until FROM leases WHERE name = $1`, name).Scan(&owner, &until)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("store: lease %s: %w", name, err)
	}
	if owner == "" || !until.Valid || until.Time.Before(now) {
		return "", time.Time{}, nil
	}
	return owner, until.Time, nil
}
