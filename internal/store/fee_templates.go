package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// DayRule is a component day of a fee template: the fixed day Fixed when it is set, else
// Offset days after the registration day.
type DayRule struct {
	Offset int
	Fixed  time.Time // a calendar day as a UTC-midnight time; zero: relative
}

// IsFixed reports whether the rule names a fixed day.
func (d DayRule) IsFixed() bool { return !d.Fixed.IsZero() }

// FeeTemplateLine is one component of a fee template.
type FeeTemplateLine struct {
	ID          string
	Name        string
	AccountCode string
	Amount      int64
	Penalty     int64
	Due         DayRule
	Expiry      DayRule
	// Optional lines may be left out when registering (the person unticks them).
	Optional    bool
	Description string
}

// FeeTemplate is a named set of components a registration bills, defined by the admin.
type FeeTemplate struct {
	ID        string
	Name      string
	Lines     []FeeTemplateLine
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Total is the sum of the amounts of all lines.
func (t FeeTemplate) Total() int64 {
	var sum int64
	for _, l := range t.Lines {
		sum += l.Amount
	}
	return sum
}

func templateNameKey(name string) string {
	return strings.ToLower(strings.Join(strings.Fields(name), " "))
}

// CreateFeeTemplate stores a new template with its lines and returns it with ids and times
// set; ErrConflict when another template has the same name.
func (db *DB) CreateFeeTemplate(ctx context.Context, t FeeTemplate) (FeeTemplate, error) {
	now := db.Now()
	t.ID, t.CreatedAt, t.UpdatedAt = NewID(), now, now
	err := db.InTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO fee_templates (id, name, name_key, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $4)`, t.ID, t.Name, templateNameKey(t.Name), now); err != nil {
			if IsUniqueViolation(err) {
				return fmt.Errorf("store: create fee template %q: %w", t.Name, ErrConflict)
			}
			return fmt.Errorf("store: create fee template: %w", err)
		}
		return insertTemplateLines(ctx, tx, t.ID, t.Lines)
	})
	if err != nil {
		return FeeTemplate{}, err
	}
	return db.FeeTemplate(ctx, t.ID)
}

// UpdateFeeTemplate replaces the name and all lines of template t.ID; ErrNotFound when it
// is gone, ErrConflict when another template has the name.
func (db *DB) UpdateFeeTemplate(ctx context.Context, t FeeTemplate) (FeeTemplate, error) {
	err := db.InTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE fee_templates SET name = $1, name_key = $2, updated_at = $3 WHERE id = $4`,
			t.Name, templateNameKey(t.Name), db.Now(), t.ID)
		if err != nil {
			if IsUniqueViolation(err) {
				return fmt.Errorf("store: update fee template %q: %w", t.Name, ErrConflict)
			}
			return fmt.Errorf("store: update fee template: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return fmt.Errorf("store: update fee template: %w", err)
		} else if n == 0 {
			return fmt.Errorf("store: update fee template %s: %w", t.ID, ErrNotFound)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM fee_template_lines WHERE template_id = $1`, t.ID); err != nil {
			return fmt.Errorf("store: update fee template lines: %w", err)
		}
		return insertTemplateLines(ctx, tx, t.ID, t.Lines)
	})
	if err != nil {
		return FeeTemplate{}, err
	}
	return db.FeeTemplate(ctx, t.ID)
}

func insertTemplateLines(ctx context.Context, tx *sql.Tx, templateID string, lines []FeeTemplateLine) error {
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO fee_template_lines (id, template_id, position, name, account_code,
		amount, penalty, due_days, due_date, expiry_days, expiry_date, optional, description)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`)
	if err != nil {
		return fmt.Errorf("store: fee template lines: %w", err)
	}
	defer stmt.Close()
	for i, l := range lines {
		dueDays, dueDate := dayRuleArgs(l.Due)
		expDays, expDate := dayRuleArgs(l.Expiry)
		if _, err := stmt.ExecContext(ctx, NewID(), templateID, int64(i), l.Name, l.AccountCode, l.Amount, l.Penalty,
			dueDays, dueDate, expDays, expDate, l.Optional, l.Description); err != nil {
			return fmt.Errorf("store: fee template line %d: %w", i, err)
		}
	}
	return nil
}

// dayRuleArgs gives the two columns of a rule: days or a date, the other NULL.
func dayRuleArgs(d DayRule) (days, date any) {
	if d.IsFixed() {
		y, m, dd := d.Fixed.UTC().Date()
		return nil, time.Date(y, m, dd, 0, 0, 0, 0, time.UTC)
	}
	return int64(d.Offset), nil
}

func dayRuleOf(days sql.NullInt64, date nullTime) DayRule {
	if date.Valid {
		return DayRule{Fixed: date.Time}
	}
	return DayRule{Offset: int(days.Int64)}
}

// DeleteFeeTemplate removes a template and its lines; ErrNotFound when it is gone.
// Registrations made with it keep their own copy of what they billed.
func (db *DB) DeleteFeeTemplate(ctx context.Context, id string) error {
	return db.InTx(ctx, func(tx *sql.Tx) error {
		// Lines first: the cascade needs foreign keys on, which a hand-made SQLite
		// connection may not have.
		if _, err := tx.ExecContext(ctx, `DELETE FROM fee_template_lines WHERE template_id = $1`, id); err != nil {
			return fmt.Errorf("store: delete fee template lines: %w", err)
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM fee_templates WHERE id = $1`, id)
		if err != nil {
			return fmt.Errorf("store: delete fee template: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return fmt.Errorf("store: delete fee template: %w", err)
		} else if n == 0 {
			return fmt.Errorf("store: delete fee template %s: %w", id, ErrNotFound)
		}
		return nil
	})
}

// FeeTemplate returns one template with its lines in order; ErrNotFound when unknown.
func (db *DB) FeeTemplate(ctx context.Context, id string) (FeeTemplate, error) {
	var t FeeTemplate
	var created, updated nullTime
	err := db.sql.QueryRowContext(ctx, `SELECT id, name, created_at, updated_at FROM fee_templates WHERE id = $1`, id).
		Scan(&t.ID, &t.Name, &created, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return FeeTemplate{}, fmt.Errorf("store: fee template %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return FeeTemplate{}, fmt.Errorf("store: fee template %s: %w", id, err)
	}
	t.CreatedAt, t.UpdatedAt = created.Time, updated.Time
	lines, err := db.templateLines(ctx, `WHERE template_id = $1`, id)
	if err != nil {
		return FeeTemplate{}, err
	}
	t.Lines = lines[id]
	return t, nil
}

// ListFeeTemplates returns every template with its lines, by name.
func (db *DB) ListFeeTemplates(ctx context.Context) ([]FeeTemplate, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT id, name, created_at, updated_at FROM fee_templates ORDER BY name_key, id`)
	if err != nil {
		return nil, fmt.Errorf("store: list fee templates: %w", err)
	}
	defer rows.Close()
	var out []FeeTemplate
	for rows.Next() {
		var t FeeTemplate
		var created, updated nullTime
		if err := rows.Scan(&t.ID, &t.Name, &created, &updated); err != nil {
			return nil, fmt.Errorf("store: list fee templates: %w", err)
		}
		t.CreatedAt, t.UpdatedAt = created.Time, updated.Time
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list fee templates: %w", err)
	}
	lines, err := db.templateLines(ctx, "")
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].Lines = lines[out[i].ID]
	}
	return out, nil
}

// templateLines reads lines matching where, grouped by template id, in position order.
func (db *DB) templateLines(ctx context.Context, where string, args ...any) (map[string][]FeeTemplateLine, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT template_id, id, name, account_code, amount, penalty,
		due_days, due_date, expiry_days, expiry_date, optional, description
		FROM fee_template_lines `+where+` ORDER BY template_id, position`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: fee template lines: %w", err)
	}
	defer rows.Close()
	out := map[string][]FeeTemplateLine{}
	for rows.Next() {
		var (
			tid              string
			l                FeeTemplateLine
			dueDays, expDays sql.NullInt64
			dueDate, expDate nullTime
		)
		if err := rows.Scan(&tid, &l.ID, &l.Name, &l.AccountCode, &l.Amount, &l.Penalty,
			&dueDays, &dueDate, &expDays, &expDate, &l.Optional, &l.Description); err != nil {
			return nil, fmt.Errorf("store: fee template lines: %w", err)
		}
		l.Due, l.Expiry = dayRuleOf(dueDays, dueDate), dayRuleOf(expDays, expDate)
		out[tid] = append(out[tid], l)
	}
	return out, rows.Err()
}
