package store

import (
	"context"
	"fmt"
	"slices"
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

// FailureScope says which failed sign-in attempts FailuresSince counts.
type FailureScope int

// The scopes of FailuresSince.
const (
	// ScopeUsername counts a username's failures from every address; a success for the
	// username clears the count.
	ScopeUsername FailureScope = iota + 1
	// ScopeAddr counts an address's failures for every username; successes do not clear
	// it (else one account of one's own would reset the count between guesses).
	ScopeAddr
	// ScopePair counts a username's failures from one address; a success for that
	// username from that address clears the count.
	ScopePair
)

// FailuresSince counts the failed attempts in scope at or after since, and returns the
// newest of them (zero when there are none). The username is normalised; an empty
// address is an address like any other (attempts made without one).
func (db *DB) FailuresSince(ctx context.Context, scope FailureScope, username, addr string, since time.Time) (n int, last time.Time, err error) {
	since = Time(since)
	username = NormalizeUsername(username)
	var match string
	var args []any
	switch scope {
	case ScopeUsername:
		match, args = "username = $1", []any{username}
	case ScopeAddr:
		match, args = "addr = $1", []any{addr}
	case ScopePair:
		match, args = "username = $1 AND addr = $2", []any{username, addr}
	default:
		return 0, time.Time{}, fmt.Errorf("store: sign-in failures: unknown scope %d", scope)
	}
	// The two parameters after the match's: ok and the time bound.
	okArg, atArg := fmt.Sprintf("$%d", len(args)+1), fmt.Sprintf("$%d", len(args)+2)

	// A success clears the count: only failures strictly after it are counted.
	after := ">="
	if scope != ScopeAddr {
		var lastOK nullTime
		if err := db.sql.QueryRowContext(ctx,
			`SELECT MAX(at) FROM signin_attempts WHERE `+match+` AND ok = `+okArg+` AND at >= `+atArg,
			append(slices.Clone(args), true, since)...).Scan(&lastOK); err != nil {
			return 0, time.Time{}, fmt.Errorf("store: sign-in failures: %w", err)
		}
		if lastOK.Valid {
			after, since = ">", lastOK.Time
		}
	}
	var newest nullTime
	if err := db.sql.QueryRowContext(ctx,
		`SELECT COUNT(*), MAX(at) FROM signin_attempts WHERE `+match+` AND ok = `+okArg+` AND at `+after+` `+atArg,
		append(args, false, since)...).Scan(&n, &newest); err != nil {
		return 0, time.Time{}, fmt.Errorf("store: sign-in failures: %w", err)
	}
	return n, newest.Time, nil
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
