package sandbox

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// student is the student record as sent and returned.
type student struct {
	Name         string `json:"name"`
	BillKeyValue string `json:"bill_key_value"`
	BillKeyName  string `json:"bill_key_name"`
	Phone        string `json:"phone"`
	Email        string `json:"email"`
	Description  string `json:"description"`
}

// studentRow is a stored student with its keys.
type studentRow struct {
	id     int64
	billID string
	student
}

const studentColumns = `id, bill_id, nis, name, key_name, phone, email, description`

func scanStudent(row interface{ Scan(...any) error }) (studentRow, error) {
	var r studentRow
	err := row.Scan(&r.id, &r.billID, &r.BillKeyValue, &r.Name, &r.BillKeyName, &r.Phone, &r.Email, &r.Description)
	if errors.Is(err, sql.ErrNoRows) {
		return r, errNotFound
	}
	return r, err
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// studentByNIS loads one live student; errNotFound when unknown or deleted.
func studentByNIS(ctx context.Context, q querier, nis string) (studentRow, error) {
	r, err := scanStudent(q.QueryRowContext(ctx, `SELECT `+studentColumns+` FROM students WHERE nis = ? AND deleted_at IS NULL`, nis))
	if err != nil && !errors.Is(err, errNotFound) {
		return r, fmt.Errorf("load student: %w", err)
	}
	return r, err
}

// existingNIS returns which of the given NIS are already stored.
func existingNIS(ctx context.Context, tx *sql.Tx, nis []string) (map[string]bool, error) {
	stmt, err := tx.PrepareContext(ctx, `SELECT 1 FROM students WHERE nis = ? AND deleted_at IS NULL`)
	if err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	defer stmt.Close()
	found := map[string]bool{}
	for _, n := range nis {
		var one int
		switch err := stmt.QueryRowContext(ctx, n).Scan(&one); {
		case err == nil:
			found[n] = true
		case !errors.Is(err, sql.ErrNoRows):
			return nil, fmt.Errorf("look up student: %w", err)
		}
	}
	return found, nil
}

// insertStudents stores students (already validated) created at createdAt
// (unix nanoseconds); newID makes each bill id.
func insertStudents(ctx context.Context, tx *sql.Tx, list []student, createdAt int64, newID func() string) ([]studentRow, error) {
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO students (bill_id, nis, name, key_name, phone, email, description, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	defer stmt.Close()
	rows := make([]studentRow, 0, len(list))
	for _, st := range list {
		billID := newID()
		res, err := stmt.ExecContext(ctx, billID, st.BillKeyValue, st.Name, st.BillKeyName, st.Phone, st.Email, st.Description, createdAt)
		if err != nil {
			return nil, fmt.Errorf("insert student: %w", err)
		}
		id, err := res.LastInsertId()
		if err != nil {
			return nil, fmt.Errorf("insert student: %w", err)
		}
		rows = append(rows, studentRow{id: id, billID: billID, student: st})
	}
	return rows, nil
}

// studentFilter selects students of the list: name is a case-insensitive
// part of the name, nis an exact NIS; empty means any.
type studentFilter struct {
	name   string
	nis    string
	offset int
	limit  int
}

// listStudents returns live students, newest first (created_at, then id).
func (st *store) listStudents(ctx context.Context, f studentFilter) ([]student, error) {
	q := `SELECT ` + studentColumns + ` FROM students WHERE deleted_at IS NULL`
	var args []any
	if f.nis != "" {
		q += ` AND nis = ?`
		args = append(args, f.nis)
	}
	if f.name != "" {
		// instr on lower() needs no escaping of LIKE's wildcards.
		q += ` AND instr(lower(name), lower(?)) > 0`
		args = append(args, f.name)
	}
	q += ` ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`
	rows, err := st.db.QueryContext(ctx, q, append(args, f.limit, f.offset)...)
	if err != nil {
		return nil, fmt.Errorf("list students: %w", err)
	}
	defer rows.Close()
	out := []student{}
	for rows.Next() {
		r, err := scanStudent(rows)
		if err != nil {
			return nil, fmt.Errorf("list students: %w", err)
		}
		out = append(out, r.student)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list students: %w", err)
	}
	return out, nil
}
