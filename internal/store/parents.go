package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// ParentContacts are a student's parents' contacts as the portal keeps them.
type ParentContacts struct {
	NIS  string
	Name string
	// WhatsApp is the parents' WhatsApp number as set by staff; "" : the student's phone.
	WhatsApp string
	Email    string
	// WhatsAppOptOut and EmailOptOut: the parents asked not to be written to that way.
	WhatsAppOptOut, EmailOptOut bool
	UpdatedAt                   time.Time
	UpdatedBy                   string
}

const parentColumns = `nis, name, whatsapp, email, whatsapp_opt_out, email_opt_out, updated_at, updated_by`

func scanParent(row interface{ Scan(...any) error }) (ParentContacts, error) {
	var c ParentContacts
	err := row.Scan(&c.NIS, &c.Name, &c.WhatsApp, &c.Email, &c.WhatsAppOptOut, &c.EmailOptOut, &c.UpdatedAt, &c.UpdatedBy)
	c.UpdatedAt = c.UpdatedAt.UTC()
	return c, err
}

// ParentContacts reads nis's parents' contacts; ErrNotFound when none were ever set.
func (db *DB) ParentContacts(ctx context.Context, nis string) (ParentContacts, error) {
	c, err := scanParent(db.sql.QueryRowContext(ctx, `SELECT `+parentColumns+` FROM parent_contacts WHERE nis = $1`, nis))
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return ParentContacts{}, ErrNotFound
	case err != nil:
		return ParentContacts{}, fmt.Errorf("store: parent contacts of %s: %w", nis, err)
	}
	return c, nil
}

// ParentContactsOf reads the contacts of the given students, keyed by NIS (absent: none set).
func (db *DB) ParentContactsOf(ctx context.Context, nis []string) (map[string]ParentContacts, error) {
	out := make(map[string]ParentContacts, len(nis))
	const chunk = 500
	for start := 0; start < len(nis); start += chunk {
		part := nis[start:min(start+chunk, len(nis))]
		ph, args := make([]string, len(part)), make([]any, len(part))
		for i, n := range part {
			ph[i], args[i] = fmt.Sprintf("$%d", i+1), n
		}
		rows, err := db.sql.QueryContext(ctx, `SELECT `+parentColumns+` FROM parent_contacts WHERE nis IN (`+strings.Join(ph, ",")+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("store: parent contacts: %w", err)
		}
		for rows.Next() {
			c, err := scanParent(rows)
			if err != nil {
				rows.Close()
				return nil, fmt.Errorf("store: parent contacts: %w", err)
			}
			out[c.NIS] = c
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("store: parent contacts: %w", err)
		}
	}
	return out, nil
}

// SaveParentContacts stores c and its audit entry together, or neither.
func (db *DB) SaveParentContacts(ctx context.Context, c ParentContacts, audit AuditEntry) error {
	if c.UpdatedAt.IsZero() {
		c.UpdatedAt = db.Now()
	}
	if audit.At.IsZero() {
		audit.At = c.UpdatedAt
	}
	err := db.InTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO parent_contacts (`+parentColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
			ON CONFLICT (nis) DO UPDATE SET name = excluded.name, whatsapp = excluded.whatsapp, email = excluded.email,
				whatsapp_opt_out = excluded.whatsapp_opt_out, email_opt_out = excluded.email_opt_out,
				updated_at = excluded.updated_at, updated_by = excluded.updated_by`,
			c.NIS, c.Name, c.WhatsApp, c.Email, c.WhatsAppOptOut, c.EmailOptOut, Time(c.UpdatedAt), c.UpdatedBy); err != nil {
			return err
		}
		return AppendAuditTx(ctx, tx, audit)
	})
	if err != nil {
		return fmt.Errorf("store: save parent contacts of %s: %w", c.NIS, err)
	}
	return nil
}

// ParentLink is a student's parent page link: the hash of its token and its generation.
type ParentLink struct {
	NIS        string
	TokenHash  string
	Generation int64
	CreatedAt  time.Time
	CreatedBy  string
}

// ParentLink reads nis's link; ErrNotFound when it has none yet.
func (db *DB) ParentLink(ctx context.Context, nis string) (ParentLink, error) {
	return db.parentLink(ctx, `nis = $1`, nis)
}

// ParentLinkByHash finds the link whose token hashes to hash; ErrNotFound when none does
// (a wrong token, or one renewed since).
func (db *DB) ParentLinkByHash(ctx context.Context, hash string) (ParentLink, error) {
	return db.parentLink(ctx, `token_hash = $1`, hash)
}

func (db *DB) parentLink(ctx context.Context, where string, arg string) (ParentLink, error) {
	var l ParentLink
	err := db.sql.QueryRowContext(ctx, `SELECT nis, token_hash, generation, created_at, created_by FROM parent_links WHERE `+where, arg).
		Scan(&l.NIS, &l.TokenHash, &l.Generation, &l.CreatedAt, &l.CreatedBy)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return ParentLink{}, ErrNotFound
	case err != nil:
		return ParentLink{}, fmt.Errorf("store: parent link: %w", err)
	}
	l.CreatedAt = l.CreatedAt.UTC()
	return l, nil
}

// CreateParentLink stores l when nis has no link yet, and returns the link nis has (l, or
// the one another request made first).
func (db *DB) CreateParentLink(ctx context.Context, l ParentLink) (ParentLink, error) {
	if _, err := db.sql.ExecContext(ctx, `INSERT INTO parent_links (nis, token_hash, generation, created_at, created_by)
		VALUES ($1, $2, $3, $4, $5) ON CONFLICT (nis) DO NOTHING`, l.NIS, l.TokenHash, l.Generation, Time(l.CreatedAt), l.CreatedBy); err != nil {
		return ParentLink{}, fmt.Errorf("store: create parent link: %w", err)
	}
	return db.ParentLink(ctx, l.NIS)
}

// ReplaceParentLink makes l nis's link (the old token stops working) with its audit
// entry, both or neither; it refuses (ErrConflict) when the link changed since generation
// was read, so two renewals at once do not both seem to win.
func (db *DB) ReplaceParentLink(ctx context.Context, l ParentLink, previous int64, audit AuditEntry) error {
	if audit.At.IsZero() {
		audit.At = Time(l.CreatedAt)
	}
	err := db.InTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE parent_links SET token_hash = $1, generation = $2, created_at = $3, created_by = $4
			WHERE nis = $5 AND generation = $6`, l.TokenHash, l.Generation, Time(l.CreatedAt), l.CreatedBy, l.NIS, previous)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			return errors.Join(ErrConflict, err)
		}
		return AppendAuditTx(ctx, tx, audit)
	})
	if err != nil {
		return fmt.Errorf("store: replace parent link of %s: %w", l.NIS, err)
	}
	return nil
}
