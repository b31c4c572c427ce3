package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// FeePlan is a fee plan as kept (00066); internal/plans owns its rules and reads its
// months and schedule.
type FeePlan struct {
	ID, Code, Name, ItemName, AccountCode string
	Amount, Penalty                       int64
	// Frequency is monthly, semester or once; FromMonth and ToMonth are "YYYY-MM".
	Frequency, FromMonth, ToMonth   string
	DueDay, ExpiryDays, Instalments int
	Rates                           []FeePlanRate
	CreatedBy                       string
	CreatedAt, UpdatedAt            time.Time
}

// FeePlanRate is a price of a plan's own for a grade or a class.
type FeePlanRate struct {
	// Scope is "grade" or "class"; Target the grade ("7") or the class ("Kelas 7A").
	Scope, Target string
	Amount        int64
}

const feePlanCols = `id, code, name, item_name, account_code, amount, penalty, frequency, from_month, to_month,
	due_day, expiry_days, instalments, created_by, created_at, updated_at`

func scanFeePlan(row interface{ Scan(...any) error }) (FeePlan, error) {
	var p FeePlan
	var created, updated nullTime
	err := row.Scan(&p.ID, &p.Code, &p.Name, &p.ItemName, &p.AccountCode, &p.Amount, &p.Penalty, &p.Frequency,
		&p.FromMonth, &p.ToMonth, &p.DueDay, &p.ExpiryDays, &p.Instalments, &p.CreatedBy, &created, &updated)
	p.CreatedAt, p.UpdatedAt = created.Time, updated.Time
	return p, err
}

// CreateFeePlan stores a new plan with its rates, and the audit entry of its making, in
// one transaction. A code taken already is ErrConflict.
func (db *DB) CreateFeePlan(ctx context.Context, p FeePlan, entry AuditEntry) error {
	now := db.Now()
	err := db.InTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO fee_plans (`+feePlanCols+`)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $15)`,
			p.ID, p.Code, p.Name, p.ItemName, p.AccountCode, p.Amount, p.Penalty, p.Frequency, p.FromMonth, p.ToMonth,
			p.DueDay, p.ExpiryDays, p.Instalments, p.CreatedBy, now); err != nil {
			return err
		}
		if err := writeRates(ctx, tx, p.ID, p.Rates); err != nil {
			return err
		}
		return AppendAuditTx(ctx, tx, entry)
	})
	if IsUniqueViolation(err) {
		return fmt.Errorf("store: fee plan %s: %w", p.Code, ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("store: create fee plan: %w", err)
	}
	return nil
}

// UpdateFeePlan replaces a plan's fields and rates (its code stays), with the audit entry
// of the change, in one transaction; ErrNotFound for a plan that does not exist.
func (db *DB) UpdateFeePlan(ctx context.Context, p FeePlan, entry AuditEntry) error {
	now := db.Now()
	err := db.InTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE fee_plans SET name = $2, item_name = $3, account_code = $4, amount = $5,
			penalty = $6, frequency = $7, from_month = $8, to_month = $9, due_day = $10, expiry_days = $11, instalments = $12,
			updated_at = $13 WHERE id = $1`,
			p.ID, p.Name, p.ItemName, p.AccountCode, p.Amount, p.Penalty, p.Frequency, p.FromMonth, p.ToMonth, p.DueDay,
			p.ExpiryDays, p.Instalments, now)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err == nil && n == 0 {
			return ErrNotFound
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM fee_plan_rates WHERE plan_id = $1`, p.ID); err != nil {
			return err
		}
		if err := writeRates(ctx, tx, p.ID, p.Rates); err != nil {
			return err
		}
		return AppendAuditTx(ctx, tx, entry)
	})
	if err != nil {
		return fmt.Errorf("store: update fee plan %s: %w", p.ID, err)
	}
	return nil
}

func writeRates(ctx context.Context, tx *sql.Tx, planID string, rates []FeePlanRate) error {
	for _, r := range rates {
		if _, err := tx.ExecContext(ctx, `INSERT INTO fee_plan_rates (plan_id, scope, target, amount) VALUES ($1, $2, $3, $4)`,
			planID, r.Scope, r.Target, r.Amount); err != nil {
			return err
		}
	}
	return nil
}

// FeePlanByID reads a plan with its rates (ErrNotFound when there is none).
func (db *DB) FeePlanByID(ctx context.Context, id string) (FeePlan, error) {
	p, err := scanFeePlan(db.sql.QueryRowContext(ctx, `SELECT `+feePlanCols+` FROM fee_plans WHERE id = $1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return p, fmt.Errorf("store: fee plan %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return p, fmt.Errorf("store: fee plan %s: %w", id, err)
	}
	rates, err := db.feePlanRates(ctx, []string{id})
	p.Rates = rates[id]
	return p, err
}

// FeePlanCodeTaken reports whether a plan has the code.
func (db *DB) FeePlanCodeTaken(ctx context.Context, code string) (bool, error) {
	var n int
	if err := db.sql.QueryRowContext(ctx, `SELECT COUNT(*) FROM fee_plans WHERE code = $1`, code).Scan(&n); err != nil {
		return false, fmt.Errorf("store: fee plan code %s: %w", code, err)
	}
	return n > 0, nil
}

// FeePlans lists every plan with its rates, the newest first.
func (db *DB) FeePlans(ctx context.Context) ([]FeePlan, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT `+feePlanCols+` FROM fee_plans ORDER BY from_month DESC, created_at DESC`)
	if err != nil {
		return nil, fmt.Errorf("store: fee plans: %w", err)
	}
	var out []FeePlan
	var ids []string
	for rows.Next() {
		p, err := scanFeePlan(rows)
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("store: fee plans: %w", err)
		}
		out = append(out, p)
		ids = append(ids, p.ID)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: fee plans: %w", err)
	}
	rates, err := db.feePlanRates(ctx, ids)
	for i := range out {
		out[i].Rates = rates[out[i].ID]
	}
	return out, err
}

// feePlanRates reads the rates of the plans ids (all plans when ids is nil), by plan.
func (db *DB) feePlanRates(ctx context.Context, ids []string) (map[string][]FeePlanRate, error) {
	out := map[string][]FeePlanRate{}
	if ids != nil && len(ids) == 0 {
		return out, nil
	}
	rows, err := db.sql.QueryContext(ctx, `SELECT plan_id, scope, target, amount FROM fee_plan_rates ORDER BY plan_id, scope, target`)
	if err != nil {
		return nil, fmt.Errorf("store: fee plan rates: %w", err)
	}
	defer rows.Close()
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	for rows.Next() {
		var id string
		var r FeePlanRate
		if err := rows.Scan(&id, &r.Scope, &r.Target, &r.Amount); err != nil {
			return nil, fmt.Errorf("store: fee plan rates: %w", err)
		}
		if ids == nil || want[id] {
			out[id] = append(out[id], r)
		}
	}
	return out, rows.Err()
}
