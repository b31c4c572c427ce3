package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Discount is a discount or scholarship granted to a student (00066); internal/plans owns
// its rules and its arithmetic.
type Discount struct {
	ID, NIS string
	// PlanID is the plan it is for; "" for every plan.
	PlanID string
	// Kind is "percent" (Value in hundredths of a percent: 5000 is 50%) or "amount"
	// (Value in rupiah).
	Kind  string
	Value int64
	// Reason is sibling, staff_child, scholarship, hardship or other; Note the words typed.
	Reason, Note string
	// FromMonth and ToMonth ("YYYY-MM", "" for open) bound the periods it covers.
	FromMonth, ToMonth     string
	GrantedBy, GrantedByID string
	CreatedAt, UpdatedAt   time.Time
}

const discountCols = `id, nis, plan_id, kind, value, reason, note, from_month, to_month, granted_by, granted_by_id,
	created_at, updated_at`

func scanDiscount(row interface{ Scan(...any) error }) (Discount, error) {
	var d Discount
	var created, updated nullTime
	err := row.Scan(&d.ID, &d.NIS, &d.PlanID, &d.Kind, &d.Value, &d.Reason, &d.Note, &d.FromMonth, &d.ToMonth,
		&d.GrantedBy, &d.GrantedByID, &created, &updated)
	d.CreatedAt, d.UpdatedAt = created.Time, updated.Time
	return d, err
}

// SaveDiscount stores a new discount, or replaces an existing one's terms (the grant's
// maker stays), with the audit entry of the change, in one transaction.
func (db *DB) SaveDiscount(ctx context.Context, d Discount, entry AuditEntry) error {
	now := db.Now()
	err := db.InTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO discounts (`+discountCols+`)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12)
			ON CONFLICT (id) DO UPDATE SET plan_id = excluded.plan_id, kind = excluded.kind, value = excluded.value,
				reason = excluded.reason, note = excluded.note, from_month = excluded.from_month, to_month = excluded.to_month,
				updated_at = excluded.updated_at`,
			d.ID, d.NIS, d.PlanID, d.Kind, d.Value, d.Reason, d.Note, d.FromMonth, d.ToMonth, d.GrantedBy, d.GrantedByID, now); err != nil {
			return err
		}
		return AppendAuditTx(ctx, tx, entry)
	})
	if err != nil {
		return fmt.Errorf("store: save discount %s: %w", d.ID, err)
	}
	return nil
}

// DeleteDiscount removes a discount with the audit entry of its removal, in one
// transaction; ErrNotFound when there is none.
func (db *DB) DeleteDiscount(ctx context.Context, id string, entry AuditEntry) error {
	err := db.InTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM discounts WHERE id = $1`, id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err == nil && n == 0 {
			return ErrNotFound
		}
		return AppendAuditTx(ctx, tx, entry)
	})
	if err != nil {
		return fmt.Errorf("store: delete discount %s: %w", id, err)
	}
	return nil
}

// DiscountByID reads one discount (ErrNotFound when there is none).
func (db *DB) DiscountByID(ctx context.Context, id string) (Discount, error) {
	d, err := scanDiscount(db.sql.QueryRowContext(ctx, `SELECT `+discountCols+` FROM discounts WHERE id = $1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return d, fmt.Errorf("store: discount %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return d, fmt.Errorf("store: discount %s: %w", id, err)
	}
	return d, nil
}

// Discounts lists the discounts of the students nis (every student's when nis is nil),
// by student, oldest first.
func (db *DB) Discounts(ctx context.Context, nis []string) ([]Discount, error) {
	if nis != nil && len(nis) == 0 {
		return nil, nil
	}
	var out []Discount
	read := func(where string, args ...any) error {
		rows, err := db.sql.QueryContext(ctx, `SELECT `+discountCols+` FROM discounts`+where+` ORDER BY nis, created_at, id`, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			d, err := scanDiscount(rows)
			if err != nil {
				return err
			}
			out = append(out, d)
		}
		return rows.Err()
	}
	if nis == nil {
		if err := read(""); err != nil {
			return nil, fmt.Errorf("store: discounts: %w", err)
		}
		return out, nil
	}
	const chunk = 200
	for start := 0; start < len(nis); start += chunk {
		part := nis[start:min(start+chunk, len(nis))]
		ph := make([]string, len(part))
		args := make([]any, len(part))
		for i, n := range part {
			ph[i], args[i] = fmt.Sprintf("$%d", i+1), n
		}
		if err := read(` WHERE nis IN (`+strings.Join(ph, ", ")+`)`, args...); err != nil {
			return nil, fmt.Errorf("store: discounts: %w", err)
		}
	}
	return out, nil
}
