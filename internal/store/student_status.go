package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// StudentsNotActive lists the students whose standing is not active (graduated, moved,
// left), by class then NIS: the former students the alumni arrears look through.
func (db *DB) StudentsNotActive(ctx context.Context) ([]Student, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT `+studentColumns+` FROM students WHERE status <> 'active'
		ORDER BY description, nis`)
	if err != nil {
		return nil, fmt.Errorf("store: former students: %w", err)
	}
	defer rows.Close()
	var out []Student
	for rows.Next() {
		s, err := scanStudent(rows)
		if err != nil {
			return nil, fmt.Errorf("store: former students: %w", err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// SetStudentStanding records student nis's standing (status, from the day on, why) and
// its audit entry e in one transaction: the change and its record, or neither.
// ErrNotFound for a NIS the roster does not have.
func (db *DB) SetStudentStanding(ctx context.Context, nis, status string, on time.Time, note string, e AuditEntry) error {
	return db.InTx(ctx, func(tx *sql.Tx) error {
		if err := db.SetStudentStatus(ctx, tx, nis, status, on, note); err != nil {
			return err
		}
		return AppendAuditTx(ctx, tx, e)
	})
}
