package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// RegistrationApplication is one submission of the public registration form, kept before
// anything goes to the service (migration 00033). Its states and holds are
// internal/registration's words; the store keeps them as text.
type RegistrationApplication struct {
	ID, Reference                   string
	NIS, StudentName, ContactName   string
	Phone, Email, Description       string
	TemplateID, TemplateName        string
	Components                      []RegisteredComponent // as the form showed them (no ids)
	Total                           int64
	IP                              string
	State, Hold                     string
	SentAt                          time.Time // zero: never sent
	Auto                            bool      // sent by the intake, without a person
	BillID                          string
	DecidedBy, Reason               string
	DecidedAt, CreatedAt, UpdatedAt time.Time
}

const applicationColumns = `id, reference, nis, student_name, contact_name, phone, email, description, template_id,
	template_name, components, total, ip, state, hold, sent_at, auto, bill_id, decided_by, decided_at, reason,
	created_at, updated_at`

// AddRegistrationApplication stores a new application; ErrConflict when its id or
// reference is taken (the caller draws another reference).
func (db *DB) AddRegistrationApplication(ctx context.Context, a RegistrationApplication) error {
	comps, err := json.Marshal(a.Components)
	if err != nil {
		return fmt.Errorf("store: add registration application: %w", err)
	}
	_, err = db.sql.ExecContext(ctx, `INSERT INTO registration_applications (`+applicationColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23)`,
		a.ID, a.Reference, a.NIS, a.StudentName, a.ContactName, a.Phone, a.Email, a.Description, a.TemplateID,
		a.TemplateName, string(comps), a.Total, a.IP, a.State, a.Hold, nullable(a.SentAt), a.Auto, a.BillID, a.DecidedBy,
		nullable(a.DecidedAt), a.Reason, Time(a.CreatedAt), Time(a.UpdatedAt))
	if IsUniqueViolation(err) {
		return fmt.Errorf("store: add registration application: %w", ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("store: add registration application: %w", err)
	}
	return nil
}

type rowScanner interface{ Scan(dest ...any) error }

func scanApplication(r rowScanner) (RegistrationApplication, error) {
	var (
		a                           RegistrationApplication
		comps                       string
		sent, decided, created, upd nullTime
	)
	err := r.Scan(&a.ID, &a.Reference, &a.NIS, &a.StudentName, &a.ContactName, &a.Phone, &a.Email, &a.Description,
		&a.TemplateID, &a.TemplateName, &comps, &a.Total, &a.IP, &a.State, &a.Hold, &sent, &a.Auto, &a.BillID,
		&a.DecidedBy, &decided, &a.Reason, &created, &upd)
	if err != nil {
		return a, err
	}
	a.SentAt, a.DecidedAt, a.CreatedAt, a.UpdatedAt = sent.Time, decided.Time, created.Time, upd.Time
	if err := json.Unmarshal([]byte(comps), &a.Components); err != nil {
		return a, fmt.Errorf("components: %w", err)
	}
	return a, nil
}

// RegistrationApplication returns one application; ErrNotFound when unknown.
func (db *DB) RegistrationApplication(ctx context.Context, id string) (RegistrationApplication, error) {
	a, err := scanApplication(db.sql.QueryRowContext(ctx,
		`SELECT `+applicationColumns+` FROM registration_applications WHERE id = $1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return a, fmt.Errorf("store: registration application %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return a, fmt.Errorf("store: registration application %s: %w", id, err)
	}
	return a, nil
}

// RegistrationApplications lists the applications in one of states, oldest first when
// oldestFirst, else newest first, at most limit from offset.
func (db *DB) RegistrationApplications(ctx context.Context, states []string, oldestFirst bool, offset, limit int) ([]RegistrationApplication, error) {
	if len(states) == 0 {
		return nil, nil
	}
	marks := make([]string, len(states))
	args := make([]any, 0, len(states)+2)
	for i, s := range states {
		marks[i] = fmt.Sprintf("$%d", i+1)
		args = append(args, s)
	}
	order := "DESC"
	if oldestFirst {
		order = "ASC"
	}
	args = append(args, limit, offset)
	rows, err := db.sql.QueryContext(ctx, `SELECT `+applicationColumns+` FROM registration_applications
		WHERE state IN (`+strings.Join(marks, ", ")+`) ORDER BY created_at `+order+`, id `+order+
		fmt.Sprintf(` LIMIT $%d OFFSET $%d`, len(states)+1, len(states)+2), args...)
	if err != nil {
		return nil, fmt.Errorf("store: registration applications: %w", err)
	}
	defer rows.Close()
	var out []RegistrationApplication
	for rows.Next() {
		a, err := scanApplication(rows)
		if err != nil {
			return nil, fmt.Errorf("store: registration applications: %w", err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: registration applications: %w", err)
	}
	return out, nil
}

// CountRegistrationApplications counts the applications in state.
func (db *DB) CountRegistrationApplications(ctx context.Context, state string) (int, error) {
	var n int
	if err := db.sql.QueryRowContext(ctx, `SELECT COUNT(*) FROM registration_applications WHERE state = $1`, state).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: count registration applications: %w", err)
	}
	return n, nil
}

// CountAutoSentSince counts the applications the intake sent to the service on its own at
// or after since (the form's hourly cap).
func (db *DB) CountAutoSentSince(ctx context.Context, since time.Time) (int, error) {
	var n int
	if err := db.sql.QueryRowContext(ctx, `SELECT COUNT(*) FROM registration_applications WHERE auto = $1 AND sent_at >= $2`,
		true, Time(since)).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: count applications sent: %w", err)
	}
	return n, nil
}

// ApplicationChange moves an application from one of From to To, with what the move sets.
type ApplicationChange struct {
	ID   string
	From []string
	To   string
	Hold string
	// SentAt, when not zero, is when it went to the service; Auto says it went on its own.
	SentAt time.Time
	Auto   bool
	BillID string
	// DecidedBy, DecidedAt and Reason are a person's decision, when set.
	DecidedBy string
	DecidedAt time.Time
	Reason    string
	At        time.Time
}

// MoveRegistrationApplication applies c only when the application is in one of c.From
// (in one statement, so two instances or two people never both move it); it reports
// whether it did. Fields of c left empty keep their value, but Hold, which is always set.
func (db *DB) MoveRegistrationApplication(ctx context.Context, c ApplicationChange) (bool, error) {
	if len(c.From) == 0 {
		return false, errors.New("store: move registration application: no state to move from")
	}
	args := []any{c.To, c.Hold, nullable(c.SentAt), c.Auto, c.BillID, c.DecidedBy, nullable(c.DecidedAt), c.Reason, Time(c.At), c.ID}
	marks := make([]string, len(c.From))
	for i, s := range c.From {
		args = append(args, s)
		marks[i] = fmt.Sprintf("$%d", len(args))
	}
	res, err := db.sql.ExecContext(ctx, `UPDATE registration_applications SET state = $1, hold = $2,
		sent_at = COALESCE($3, sent_at),
		auto = CASE WHEN $3 IS NULL THEN auto ELSE $4 END,
		bill_id = CASE WHEN $5 = '' THEN bill_id ELSE $5 END,
		decided_by = CASE WHEN $6 = '' THEN decided_by ELSE $6 END,
		decided_at = COALESCE($7, decided_at),
		reason = CASE WHEN $8 = '' THEN reason ELSE $8 END,
		updated_at = $9
		WHERE id = $10 AND state IN (`+strings.Join(marks, ", ")+`)`, args...)
	if err != nil {
		return false, fmt.Errorf("store: move registration application %s: %w", c.ID, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("store: move registration application %s: %w", c.ID, err)
	}
	return n == 1, nil
}

// TakeSequenceNumber takes the next number of the sequence scope (1 for a new one), in
// one atomic statement: instances sharing the database never take the same number.
func (db *DB) TakeSequenceNumber(ctx context.Context, scope string) (int64, error) {
	var n int64
	err := db.sql.QueryRowContext(ctx, `INSERT INTO receipt_sequences (scope, last, updated_at) VALUES ($1, 1, $2)
		ON CONFLICT (scope) DO UPDATE SET last = receipt_sequences.last + 1, updated_at = excluded.updated_at
		RETURNING last`, scope, db.Now()).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: take a number of %q: %w", scope, err)
	}
	return n, nil
}
