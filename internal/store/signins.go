package store

import (
	"context"
	"fmt"
	"time"
)

// RecordSignIn stores one sign-in attempt for username (normalised) from addr.
func (db *DB) RecordSignIn(ctx context.Context, username, addr string, ok bool, at time.Time) error {
	_, err := db.sql.ExecContext(ctx,
		`INSERT INTO signin_attempts (id, username, addr, ok, at) VALUES ($1, $2, $3, $4, $5)`,
		NewID(), NormalizeUsername(username), addr, ok, Time(at))
	if err != nil {
		return fmt.Errorf("store: record sign-in: %w", err)
	}
	return nil
}

// FailuresSince counts failed attempts at or after since: for username only
// those after its last success (a success clears the count), for addr all of
// them (an empty addr counts none). lastUser and lastAddr are the newest
// counted failures, zero when there are none.
func (db *DB) FailuresSince(ctx context.Context, username, addr string, since time.Time) (byUser, byAddr int, lastUser, lastAddr time.Time, err error) {
	since = Time(since)
	username = NormalizeUsername(username)

	var lastOK nullTime
	if err = db.sql.QueryRowContext(ctx,
		`SELECT MAX(at) FROM signin_attempts WHERE username = $1 AND ok = $2 AND at >= $3`,
		username, true, since).Scan(&lastOK); err != nil {
		return 0, 0, time.Time{}, time.Time{}, fmt.Errorf("store: sign-in failures: %w", err)
	}
	// A success clears the count: only failures strictly after it are counted.
	userCond, userFrom := "at >= $3", since
	if lastOK.Valid {
		userCond, userFrom = "at > $3", lastOK.Time
	}
	var last nullTime
	if err = db.sql.QueryRowContext(ctx,
		`SELECT COUNT(*), MAX(at) FROM signin_attempts WHERE username = $1 AND ok = $2 AND `+userCond,
		username, false, userFrom).Scan(&byUser, &last); err != nil {
		return 0, 0, time.Time{}, time.Time{}, fmt.Errorf("store: sign-in failures: %w", err)
	}
	lastUser = last.Time

	if addr != "" {
		var lastA nullTime
		if err = db.sql.QueryRowContext(ctx,
			`SELECT COUNT(*), MAX(at) FROM signin_attempts WHERE addr = $1 AND ok = $2 AND at >= $3`,
			addr, false, since).Scan(&byAddr, &lastA); err != nil {
			return 0, 0, time.Time{}, time.Time{}, fmt.Errorf("store: sign-in failures: %w", err)
		}
		lastAddr = lastA.Time
	}
	return byUser, byAddr, lastUser, lastAddr, nil
}

// PruneSignIns deletes attempts older than before; they no longer affect locks.
func (db *DB) PruneSignIns(ctx context.Context, before time.Time) (int64, error) {
	res, err := db.sql.ExecContext(ctx, `DELETE FROM signin_attempts WHERE at < $1`, Time(before))
	if err != nil {
		return 0, fmt.Errorf("store: prune sign-ins: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("store: prune sign-ins: %w", err)
	}
	return n, nil
}
