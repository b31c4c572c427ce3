package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// RegisteredComponent is one component of a registration as it was sent, with the id the
// billing service gave it. Due and Expiry are calendar days (UTC midnight).
type RegisteredComponent struct {
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	AccountCode string    `json:"account_code"`
	Amount      int64     `json:"amount"`
	Penalty     int64     `json:"penalty"`
	Due         time.Time `json:"due"`
	Expiry      time.Time `json:"expiry"`
	Description string    `json:"description"`
	// LineID is the fee template's line an application chose (the public form's optional
	// lines); empty in registrations and in applications kept before it was.
	LineID string `json:"line_id,omitempty"`
}

// Registration is the record of one registration (checkout) the portal made.
type Registration struct {
	BillID       string
	NIS          string
	StudentName  string
	ContactName  string // the parent or guardian, from the public form
	Phone        string
	Email        string
	Description  string
	TemplateID   string
	TemplateName string
	Source       string // SourceCheckout or SourceRegistration
	Actor        string
	IP           string
	Components   []RegisteredComponent
	Total        int64
	CreatedAt    time.Time
}

// AddRegistration stores the record of a registration the billing service confirmed; a
// record with the same bill id already stored is left as it is.
func (db *DB) AddRegistration(ctx context.Context, r Registration) error {
	comps, err := json.Marshal(r.Components)
	if err != nil {
		return fmt.Errorf("store: add registration: %w", err)
	}
	if r.CreatedAt.IsZero() {
		r.CreatedAt = db.Now()
	}
	if _, err := db.sql.ExecContext(ctx, `INSERT INTO registrations (bill_id, nis, student_name, contact_name, phone,
		email, description, template_id, template_name, source, actor, ip, components, total, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) ON CONFLICT (bill_id) DO NOTHING`,
		r.BillID, r.NIS, r.StudentName, r.ContactName, r.Phone, r.Email, r.Description, r.TemplateID, r.TemplateName,
		r.Source, r.Actor, r.IP, string(comps), r.Total, Time(r.CreatedAt)); err != nil {
		return fmt.Errorf("store: add registration %s: %w", r.NIS, err)
	}
	return nil
}

// RegistrationByBillID returns the record of a registration; ErrNotFound when unknown.
func (db *DB) RegistrationByBillID(ctx context.Context, billID string) (Registration, error) {
	var (
		r       Registration
		comps   string
		created nullTime
	)
	err := db.sql.QueryRowContext(ctx, `SELECT bill_id, nis, student_name, contact_name, phone, email, description,
		template_id, template_name, source, actor, ip, components, total, created_at
		FROM registrations WHERE bill_id = $1`, billID).Scan(&r.BillID, &r.NIS, &r.StudentName, &r.ContactName,
		&r.Phone, &r.Email, &r.Description, &r.TemplateID, &r.TemplateName, &r.Source, &r.Actor, &r.IP, &comps,
		&r.Total, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return Registration{}, fmt.Errorf("store: registration %s: %w", billID, ErrNotFound)
	}
	if err != nil {
		return Registration{}, fmt.Errorf("store: registration %s: %w", billID, err)
	}
	r.CreatedAt = created.Time
	if err := json.Unmarshal([]byte(comps), &r.Components); err != nil {
		return Registration{}, fmt.Errorf("store: registration %s components: %w", billID, err)
	}
	return r, nil
}

// RecordRegistrationAttempt notes one public form submission from addr at time at and
// returns its id.
func (db *DB) RecordRegistrationAttempt(ctx context.Context, addr string, at time.Time) (string, error) {
	id := NewID()
	if _, err := db.sql.ExecContext(ctx, `INSERT INTO registration_attempts (id, addr, at) VALUES ($1, $2, $3)`,
		id, addr, Time(at)); err != nil {
		return "", fmt.Errorf("store: record registration attempt: %w", err)
	}
	return id, nil
}

// DeleteRegistrationAttempt forgets one submission (one the rate limit refused).
func (db *DB) DeleteRegistrationAttempt(ctx context.Context, id string) error {
	if _, err := db.sql.ExecContext(ctx, `DELETE FROM registration_attempts WHERE id = $1`, id); err != nil {
		return fmt.Errorf("store: delete registration attempt: %w", err)
	}
	return nil
}

// RegistrationAttemptsSince counts the public submissions from addr at or after since,
// and returns the oldest of them (zero when none), which says when the count next drops.
func (db *DB) RegistrationAttemptsSince(ctx context.Context, addr string, since time.Time) (int, time.Time, error) {
	var n int
	var oldest nullTime
	if err := db.sql.QueryRowContext(ctx, `SELECT COUNT(*), MIN(at) FROM registration_attempts WHERE addr = $1 AND at >= $2`,
		addr, Time(since)).Scan(&n, &oldest); err != nil {
		return 0, time.Time{}, fmt.Errorf("store: count registration attempts: %w", err)
	}
	return n, oldest.Time, nil
}

// PruneRegistrationAttempts deletes submissions older than before; they no longer count.
func (db *DB) PruneRegistrationAttempts(ctx context.Context, before time.Time) error {
	if _, err := db.sql.ExecContext(ctx, `DELETE FROM registration_attempts WHERE at < $1`, Time(before)); err != nil {
		return fmt.Errorf("store: prune registration attempts: %w", err)
	}
	return nil
}
