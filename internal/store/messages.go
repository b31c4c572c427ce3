package store

import (
	"context"
	"database/sql"
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
// order and more than once. It reports whether a message changed.
func (db *DB) MessageStatus(ctx context.Context, providerID, status string, rank int, at time.Time, code, text string) (bool, error) {
	res, err := db.sql.ExecContext(ctx, `UPDATE messages SET status = $1, status_rank = $2, status_at_us = $3, error_code = $4, error = $5
		WHERE provider_id = $6 AND provider_id <> '' AND status_rank < $2`, status, int64(rank), at.UnixMicro(), code, text, providerID)
	if err != nil {
		return false, fmt.Errorf("store: message status: %w", err)
	}
	n, err := res.RowsAffected()
	return n > 0, err
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
