package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// FollowUp is one reminder of what a student owes, sent to their parents by WhatsApp or
// as a printed letter (internal/followups decides what it says).
type FollowUp struct {
	ID         string
	NIS        string
	Channel    string // whatsapp, letter
	At         time.Time
	Actor      string // username
	ActorName  string // their display name then ("" : the username)
	Components int    // the overdue components it named
	Total      int64  // what they cost that day, in rupiah
}

// RecordFollowUp stores f and its audit entry together, or neither. ID and At are filled
// when empty.
func (db *DB) RecordFollowUp(ctx context.Context, f FollowUp, audit AuditEntry) (FollowUp, error) {
	if f.ID == "" {
		f.ID = NewID()
	}
	if f.At.IsZero() {
		f.At = db.Now()
	}
	f.At = Time(f.At)
	if audit.At.IsZero() {
		audit.At = f.At
	}
	err := db.InTx(ctx, func(tx *sql.Tx) error {
		if err := insertFollowUp(ctx, tx, f); err != nil {
			return err
		}
		return AppendAuditTx(ctx, tx, audit)
	})
	if err != nil {
		return FollowUp{}, fmt.Errorf("store: record follow-up of %s: %w", f.NIS, err)
	}
	return f, nil
}

// insertFollowUp writes f's row.
func insertFollowUp(ctx context.Context, x execer, f FollowUp) error {
	_, err := x.ExecContext(ctx, `INSERT INTO followups (id, nis, channel, at_us, actor, actor_name, components, total)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		f.ID, f.NIS, f.Channel, f.At.UnixMicro(), f.Actor, f.ActorName, int64(f.Components), f.Total)
	return err
}

// LastFollowUp is the newest follow-up of nis by channel ("": by any); ErrNotFound when
// there is none.
func (db *DB) LastFollowUp(ctx context.Context, nis, channel string) (FollowUp, error) {
	var f FollowUp
	var at, n int64
	err := db.sql.QueryRowContext(ctx, `SELECT id, nis, channel, at_us, actor, actor_name, components, total
		FROM followups WHERE nis = $1 AND ($2 = '' OR channel = $2) ORDER BY at_us DESC, id DESC LIMIT 1`, nis, channel).
		Scan(&f.ID, &f.NIS, &f.Channel, &at, &f.Actor, &f.ActorName, &n, &f.Total)
	if errors.Is(err, sql.ErrNoRows) {
		return FollowUp{}, ErrNotFound
	}
	if err != nil {
		return FollowUp{}, fmt.Errorf("store: last follow-up of %s: %w", nis, err)
	}
	f.At, f.Components = time.UnixMicro(at).UTC(), int(n)
	return f, nil
}
