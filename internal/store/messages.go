package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Message is one message the portal handed to WhatsApp or the mail server, and how it went.
type Message struct {
	ID                       string
	Channel, Kind, NIS       string
	Recipient, RecipientName string
	Subject, Body, Template  string
	ProviderID, Answer       string
	Status                   string
	StatusRank               int
	StatusAt                 time.Time
	ErrorCode, Error         string
	Actor                    string
	CreatedAt                time.Time
}

const messageColumns = `id, channel, kind, nis, recipient, recipient_name, subject, body, template, provider_id, answer,
	status, status_rank, status_at_us, error_code, error, actor, created_at_us`

// AddMessage records m (ID filled when empty), with an audit entry when audit is given,
// both or neither.
func (db *DB) AddMessage(ctx context.Context, m Message, audit *AuditEntry) (Message, error) {
	if m.ID == "" {
		m.ID = NewID()
	}
	if m.CreatedAt.IsZero() {
		m.CreatedAt = db.Now()
	}
	if m.StatusAt.IsZero() {
		m.StatusAt = m.CreatedAt
	}
	err := db.InTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO messages (`+messageColumns+`)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
			m.ID, m.Channel, m.Kind, m.NIS, m.Recipient, m.RecipientName, m.Subject, m.Body, m.Template, m.ProviderID, m.Answer,
			m.Status, int64(m.StatusRank), m.StatusAt.UnixMicro(), m.ErrorCode, m.Error, m.Actor, m.CreatedAt.UnixMicro()); err != nil {
			return err
		}
		if err := applyEarlyStatus(ctx, tx, &m); err != nil {
			return err
		}
		if audit != nil {
			if audit.At.IsZero() {
				audit.At = m.CreatedAt
			}
			return AppendAuditTx(ctx, tx, *audit)
		}
		return nil
	})
	if err != nil {
		return Message{}, fmt.Errorf("store: add message: %w", err)
	}
	return m, nil
}

// MessageStatus moves the message the provider knows as providerID to status (of rank)
// at at, unless it already has a status of that rank or higher: statuses arrive out of
// order and more than once. It reports whether a message changed. A status naming no
// recorded message is kept (migration 00069): the webhook can be quicker than the
// recording of the send's answer, and AddMessage applies it then.
func (db *DB) MessageStatus(ctx context.Context, providerID, status string, rank int, at time.Time, code, text string) (bool, error) {
	if providerID == "" {
		return false, nil
	}
	changed := false
	err := db.InTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE messages SET status = $1, status_rank = $2, status_at_us = $3, error_code = $4, error = $5
			WHERE provider_id = $6 AND status_rank < $2`, status, int64(rank), at.UnixMicro(), code, text, providerID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n > 0 {
			changed = n > 0
			return err
		}
		var known int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM messages WHERE provider_id = $1`, providerID).Scan(&known); err != nil || known > 0 {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO message_statuses_early (provider_id, status, status_rank, status_at_us, error_code, error, received_us)
			VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (provider_id, status_rank) DO NOTHING`,
			providerID, status, int64(rank), at.UnixMicro(), code, text, db.Now().UnixMicro())
		return err
	})
	if err != nil {
		return false, fmt.Errorf("store: message status: %w", err)
	}
	return changed, nil
}

// applyEarlyStatus gives the message just recorded as providerID the highest status the
// webhook brought before it was recorded, if that is beyond its own, and forgets them.
func applyEarlyStatus(ctx context.Context, tx *sql.Tx, m *Message) error {
	if m.ProviderID == "" {
		return nil
	}
	var status, code, text string
	var rank, at int64
	err := tx.QueryRowContext(ctx, `SELECT status, status_rank, status_at_us, error_code, error FROM message_statuses_early
		WHERE provider_id = $1 ORDER BY status_rank DESC LIMIT 1`, m.ProviderID).Scan(&status, &rank, &at, &code, &text)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	if int(rank) > m.StatusRank {
		if _, err := tx.ExecContext(ctx, `UPDATE messages SET status = $1, status_rank = $2, status_at_us = $3, error_code = $4, error = $5
			WHERE id = $6`, status, rank, at, code, text, m.ID); err != nil {
			return err
		}
		m.Status, m.StatusRank, m.StatusAt, m.ErrorCode, m.Error = status, int(rank), time.UnixMicro(at).UTC(), code, text
	}
	_, err = tx.ExecContext(ctx, `DELETE FROM message_statuses_early WHERE provider_id = $1`, m.ProviderID)
	return err
}

// PruneEarlyMessageStatuses forgets statuses received before before that named no
// message of the portal's (another app's messages on the same number).
func (db *DB) PruneEarlyMessageStatuses(ctx context.Context, before time.Time) (int64, error) {
	res, err := db.sql.ExecContext(ctx, `DELETE FROM message_statuses_early WHERE received_us < $1`, before.UnixMicro())
	if err != nil {
		return 0, fmt.Errorf("store: prune early message statuses: %w", err)
	}
	return res.RowsAffected()
}

// MessageFilter selects messages, newest first.
type MessageFilter struct {
	NIS     string // "" : every student's (and the tests)
	Channel string
	Limit   int
	Offset  int
}

// Messages lists messages by f, newest first, and how many match.
func (db *DB) Messages(ctx context.Context, f MessageFilter) ([]Message, int, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = 50
	}
	where := `WHERE ($1 = '' OR nis = $1) AND ($2 = '' OR channel = $2)`
	var total int
	if err := db.sql.QueryRowContext(ctx, `SELECT COUNT(*) FROM messages `+where, f.NIS, f.Channel).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("store: count messages: %w", err)
	}
	rows, err := db.sql.QueryContext(ctx, `SELECT `+messageColumns+` FROM messages `+where+
		` ORDER BY created_at_us DESC, id DESC LIMIT $3 OFFSET $4`, f.NIS, f.Channel, limit, max(f.Offset, 0))
	if err != nil {
		return nil, 0, fmt.Errorf("store: messages: %w", err)
	}
	defer rows.Close()
	var out []Message
	for rows.Next() {
		var m Message
		var rank, statusAt, created int64
		if err := rows.Scan(&m.ID, &m.Channel, &m.Kind, &m.NIS, &m.Recipient, &m.RecipientName, &m.Subject, &m.Body, &m.Template,
			&m.ProviderID, &m.Answer, &m.Status, &rank, &statusAt, &m.ErrorCode, &m.Error, &m.Actor, &created); err != nil {
			return nil, 0, fmt.Errorf("store: messages: %w", err)
		}
		m.StatusRank, m.StatusAt, m.CreatedAt = int(rank), time.UnixMicro(statusAt).UTC(), time.UnixMicro(created).UTC()
		out = append(out, m)
	}
	return out, total, rows.Err()
}
