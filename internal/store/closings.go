package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// The states of a cash closing.
const (
	ClosingLocked   = "locked"   // signed off: the cashier's day refuses changes
	ClosingReopened = "reopened" // an admin reopened it (with a reason): kept for the record
)

// ErrClosingLocked means the cashier's day already has a locked closing.
var ErrClosingLocked = errors.New("store: the cashier's day is already closed")

// CashClosing is one cashier's closing of one school day (migration 00061).
type CashClosing struct {
	ID          string
	Day         time.Time // the school's date, at UTC midnight
	Cashier     string    // username
	CashierName string    // their display name then
	Payments    int
	Components  int
	Expected    int64 // what the receipts add up to
	Counted     int64 // the cash counted
	Reason      string
	State       string
	SignedAt    time.Time
	// ReopenedAt, ReopenedBy (a username), ReopenedName and ReopenReason: an admin's
	// reopening; zero while locked.
	ReopenedAt                             time.Time
	ReopenedBy, ReopenedName, ReopenReason string
}

// ClosingReceipt is one receipt a closing counted, as it was at the sign-off.
type ClosingReceipt struct {
	NIS, StudentName, Class, Ref string
	PaidAt                       time.Time
	Components                   int
	Amount                       int64
}

// dayText is a school day as the closings keep it.
func dayText(day time.Time) string { return day.Format(time.DateOnly) }

// micro is t in UTC microseconds (0: the zero time); unmicro the reverse.
func micro(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMicro()
}

func unmicro(us int64) time.Time {
	if us == 0 {
		return time.Time{}
	}
	return time.UnixMicro(us).UTC()
}

// CloseCash stores closing c, locked, with its receipts and its audit entry in one
// transaction: ErrClosingLocked when the cashier's day has a locked closing already (the
// unique index decides, so two sign-offs at once cannot both lock). ID and SignedAt are
// filled when empty.
func (db *DB) CloseCash(ctx context.Context, c CashClosing, receipts []ClosingReceipt, audit AuditEntry) (CashClosing, error) {
	if c.ID == "" {
		c.ID = NewID()
	}
	if c.SignedAt.IsZero() {
		c.SignedAt = db.Now()
	}
	c.SignedAt, c.State = Time(c.SignedAt), ClosingLocked
	if audit.At.IsZero() {
		audit.At = c.SignedAt
	}
	err := db.InTx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM cash_closings WHERE day = $1 AND cashier = $2 AND state = $3`,
			dayText(c.Day), c.Cashier, ClosingLocked).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return ErrClosingLocked
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO cash_closings (id, day, cashier, cashier_name, payments, components, expected,
			counted, reason, state, signed_us) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
			c.ID, dayText(c.Day), c.Cashier, c.CashierName, int64(c.Payments), int64(c.Components), c.Expected, c.Counted,
			c.Reason, c.State, micro(c.SignedAt)); err != nil {
			if IsUniqueViolation(err) {
				return ErrClosingLocked
			}
			return err
		}
		if len(receipts) > 0 {
			stmt, err := tx.PrepareContext(ctx, `INSERT INTO cash_closing_receipts (closing_id, seq, nis, student_name, class,
				ref_number, paid_us, components, amount) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`)
			if err != nil {
				return err
			}
			defer stmt.Close()
			for i, r := range receipts {
				if _, err := stmt.ExecContext(ctx, c.ID, int64(i+1), r.NIS, r.StudentName, r.Class, r.Ref, micro(r.PaidAt),
					int64(r.Components), r.Amount); err != nil {
					return err
				}
			}
		}
		return AppendAuditTx(ctx, tx, audit)
	})
	if errors.Is(err, ErrClosingLocked) {
		return CashClosing{}, err
	}
	if err != nil {
		return CashClosing{}, fmt.Errorf("store: close the cash of %s on %s: %w", c.Cashier, dayText(c.Day), err)
	}
	return c, nil
}

// ReopenCash marks locked closing id reopened by (a username, and their display name)
// for reason, with its audit entry, in one transaction; ErrNotFound when there is no
// such closing or it is not locked (someone reopened it already).
func (db *DB) ReopenCash(ctx context.Context, id, by, byName, reason string, at time.Time, audit AuditEntry) error {
	if at.IsZero() {
		at = db.Now()
	}
	at = Time(at)
	if audit.At.IsZero() {
		audit.At = at
	}
	err := db.InTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE cash_closings SET state = $1, reopened_us = $2, reopened_by = $3, reopened_name = $4,
			reopen_reason = $5 WHERE id = $6 AND state = $7`, ClosingReopened, micro(at), by, byName, reason, id, ClosingLocked)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return ErrNotFound
		}
		return AppendAuditTx(ctx, tx, audit)
	})
	if errors.Is(err, ErrNotFound) {
		return err
	}
	if err != nil {
		return fmt.Errorf("store: reopen cash closing %s: %w", id, err)
	}
	return nil
}

const closingColumns = `id, day, cashier, cashier_name, payments, components, expected, counted, reason, state, signed_us,
	reopened_us, reopened_by, reopened_name, reopen_reason`

func scanClosing(row interface{ Scan(...any) error }) (CashClosing, error) {
	var c CashClosing
	var day string
	var payments, components, signed, reopened int64
	if err := row.Scan(&c.ID, &day, &c.Cashier, &c.CashierName, &payments, &components, &c.Expected, &c.Counted, &c.Reason,
		&c.State, &signed, &reopened, &c.ReopenedBy, &c.ReopenedName, &c.ReopenReason); err != nil {
		return CashClosing{}, err
	}
	d, err := time.Parse(time.DateOnly, day)
	if err != nil {
		return CashClosing{}, fmt.Errorf("closing %s: day %q: %w", c.ID, day, err)
	}
	c.Day, c.Payments, c.Components = d, int(payments), int(components)
	c.SignedAt, c.ReopenedAt = unmicro(signed), unmicro(reopened)
	return c, nil
}

// CashClosingsOn lists the closings of school day day, every cashier's, locked and
// reopened, in the order they were signed.
func (db *DB) CashClosingsOn(ctx context.Context, day time.Time) ([]CashClosing, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT `+closingColumns+` FROM cash_closings WHERE day = $1 ORDER BY signed_us, id`, dayText(day))
	if err != nil {
		return nil, fmt.Errorf("store: cash closings of %s: %w", dayText(day), err)
	}
	defer rows.Close()
	var out []CashClosing
	for rows.Next() {
		c, err := scanClosing(rows)
		if err != nil {
			return nil, fmt.Errorf("store: cash closings of %s: %w", dayText(day), err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// LockedCashClosing is the locked closing of cashier's day; ErrNotFound when the day is
// not closed (or was reopened).
func (db *DB) LockedCashClosing(ctx context.Context, day time.Time, cashier string) (CashClosing, error) {
	c, err := scanClosing(db.sql.QueryRowContext(ctx, `SELECT `+closingColumns+` FROM cash_closings
		WHERE day = $1 AND cashier = $2 AND state = $3`, dayText(day), cashier, ClosingLocked))
	if errors.Is(err, sql.ErrNoRows) {
		return CashClosing{}, ErrNotFound
	}
	if err != nil {
		return CashClosing{}, fmt.Errorf("store: the closing of %s on %s: %w", cashier, dayText(day), err)
	}
	return c, nil
}

// CashClosing is closing id with its receipts as counted; ErrNotFound when there is none.
func (db *DB) CashClosing(ctx context.Context, id string) (CashClosing, []ClosingReceipt, error) {
	c, err := scanClosing(db.sql.QueryRowContext(ctx, `SELECT `+closingColumns+` FROM cash_closings WHERE id = $1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return CashClosing{}, nil, ErrNotFound
	}
	if err != nil {
		return CashClosing{}, nil, fmt.Errorf("store: cash closing %s: %w", id, err)
	}
	rows, err := db.sql.QueryContext(ctx, `SELECT nis, student_name, class, ref_number, paid_us, components, amount
		FROM cash_closing_receipts WHERE closing_id = $1 ORDER BY seq`, id)
	if err != nil {
		return CashClosing{}, nil, fmt.Errorf("store: cash closing %s: %w", id, err)
	}
	defer rows.Close()
	var rs []ClosingReceipt
	for rows.Next() {
		var r ClosingReceipt
		var paid, n int64
		if err := rows.Scan(&r.NIS, &r.StudentName, &r.Class, &r.Ref, &paid, &n, &r.Amount); err != nil {
			return CashClosing{}, nil, fmt.Errorf("store: cash closing %s: %w", id, err)
		}
		r.PaidAt, r.Components = unmicro(paid), int(n)
		rs = append(rs, r)
	}
	if err := rows.Err(); err != nil {
		return CashClosing{}, nil, fmt.Errorf("store: cash closing %s: %w", id, err)
	}
	return c, rs, nil
}
