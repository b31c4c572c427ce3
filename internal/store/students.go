package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Where a roster entry came from.
const (
	SourcePortal       = "portal"       // created in the portal's form
	SourceUpload       = "upload"       // a students sheet
	SourceSync         = "sync"         // read from the billing service
	SourceCheckout     = "checkout"     // registration wizard
	SourceRegistration = "registration" // public registration form
)

// Student is one roster entry: the billing service's student plus what the portal
// learnt about their bills.
type Student struct {
	NIS         string
	Name        string
	KeyName     string
	Phone       string
	Email       string
	Description string // the class, e.g. "Kelas 7A"
	Source      string
	// Outstanding and OverdueCount are known only when TotalsAt is set.
	Outstanding  int64
	OverdueCount int
	TotalsAt     time.Time
	SyncedAt     time.Time
	CreatedAt    time.Time
	UpdatedAt    time.Time
	// Status is the student's standing, the portal's own (internal/students names the
	// values: active, graduated, moved, left); StatusOn the day it began (zero for active)
	// and StatusNote why. The roster sync never changes them.
	Status     string
	StatusOn   time.Time
	StatusNote string
	// Aid are the government-aid flags a Dapodik export carries.
	Aid StudentAid
}

// StudentAid are the government-aid flags of a student as Dapodik exports them.
type StudentAid struct {
	KIP bool // Penerima KIP
	KPS bool // Penerima KPS
	PIP bool // Layak PIP
}

// Any reports whether any flag is set.
func (a StudentAid) Any() bool { return a.KIP || a.KPS || a.PIP }

// HasTotals reports whether the bill totals have been computed for the student.
func (s Student) HasTotals() bool { return !s.TotalsAt.IsZero() }

// StudentFilter selects roster entries: Query matches the NIS prefix or any part of the
// name, Class the description exactly.
type StudentFilter struct {
	Query string
	Class string
	// Statuses keeps the students whose standing is one of them (none: every student).
	Statuses []string
	Offset   int
	Limit    int
	// ClassOrder lists the classes in the order the rows follow (the portal's natural
	// order, i18n.SortNatural of Classes); classes not in it come after them. Without
	// it the rows follow the classes' byte order.
	ClassOrder []string
}

const studentColumns = `nis, name, key_name, phone, email, description, source,
	outstanding, overdue_count, totals_at, synced_at, created_at, updated_at,
	status, status_on, status_note, aid_kip, aid_kps, aid_pip`

func scanStudent(row interface{ Scan(...any) error }) (Student, error) {
	var s Student
	var outstanding, overdue sql.NullInt64
	var totalsAt, syncedAt, createdAt, updatedAt, statusOn nullTime
	err := row.Scan(&s.NIS, &s.Name, &s.KeyName, &s.Phone, &s.Email, &s.Description, &s.Source,
		&outstanding, &overdue, &totalsAt, &syncedAt, &createdAt, &updatedAt,
		&s.Status, &statusOn, &s.StatusNote, &s.Aid.KIP, &s.Aid.KPS, &s.Aid.PIP)
	s.Outstanding, s.OverdueCount = outstanding.Int64, int(overdue.Int64)
	s.TotalsAt, s.SyncedAt, s.CreatedAt, s.UpdatedAt = totalsAt.Time, syncedAt.Time, createdAt.Time, updatedAt.Time
	s.StatusOn = statusOn.Time
	return s, err
}

// SetStudentStatus records student nis's standing (status, from the day on, why), in tx
// when it is not nil (with the audit entry of the change); ErrNotFound for a NIS the
// roster does not have.
func (db *DB) SetStudentStatus(ctx context.Context, tx *sql.Tx, nis, status string, on time.Time, note string) error {
	var x execer = db.sql
	if tx != nil {
		x = tx
	}
	res, err := x.ExecContext(ctx, `UPDATE students SET status = $1, status_on = $2, status_note = $3 WHERE nis = $4`,
		status, nullable(on), note, nis)
	if err != nil {
		return fmt.Errorf("store: set the status of %s: %w", nis, err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return ErrNotFound
	}
	return nil
}

// SetStudentAid records the government-aid flags of the students by NIS (a Dapodik
// import), in one transaction; NIS the roster does not have are left out and counted.
func (db *DB) SetStudentAid(ctx context.Context, aid map[string]StudentAid) (missing int, err error) {
	err = db.InTx(ctx, func(tx *sql.Tx) error {
		missing = 0
		for nis, a := range aid {
			res, err := tx.ExecContext(ctx, `UPDATE students SET aid_kip = $1, aid_kps = $2, aid_pip = $3 WHERE nis = $4`,
				a.KIP, a.KPS, a.PIP, nis)
			if err != nil {
				return fmt.Errorf("store: set the aid flags of %s: %w", nis, err)
			}
			if n, err := res.RowsAffected(); err == nil && n == 0 {
				missing++
			}
		}
		return nil
	})
	return missing, err
}

func nullable(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return Time(t)
}

// UpsertStudents inserts or refreshes roster entries in one transaction. Profile fields
// are overwritten; the source and creation time of an existing entry stay; SyncedAt is
// kept when the new value is zero.
func (db *DB) UpsertStudents(ctx context.Context, students []Student) error {
	if len(students) == 0 {
		return nil
	}
	return db.InTx(ctx, func(tx *sql.Tx) error { return db.UpsertStudentsTx(ctx, tx, students) })
}

// UpsertStudentsTx is UpsertStudents inside tx, for writers that change the roster
// together with other tables (the ledger's sync).
func (db *DB) UpsertStudentsTx(ctx context.Context, tx *sql.Tx, students []Student) error {
	if len(students) == 0 {
		return nil
	}
	if err := rosterChanged(ctx, tx); err != nil {
		return fmt.Errorf("store: upsert students: %w", err)
	}
	now := db.Now()
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO students (nis, name, name_search, key_name, phone, email,
		description, source, synced_at, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)
		ON CONFLICT (nis) DO UPDATE SET name = excluded.name, name_search = excluded.name_search,
			key_name = excluded.key_name, phone = excluded.phone, email = excluded.email,
			description = excluded.description, updated_at = excluded.updated_at,
			synced_at = COALESCE(excluded.synced_at, students.synced_at)`)
	if err != nil {
		return fmt.Errorf("store: upsert students: %w", err)
	}
	defer stmt.Close()
	for _, s := range students {
		if s.NIS == "" {
			return errors.New("store: upsert students: empty NIS")
		}
		keyName := s.KeyName
		if keyName == "" {
			keyName = "NIS"
		}
		if _, err := stmt.ExecContext(ctx, s.NIS, s.Name, searchable(s.Name), keyName, s.Phone, s.Email,
			s.Description, s.Source, nullable(s.SyncedAt), now); err != nil {
			return fmt.Errorf("store: upsert student %s: %w", s.NIS, err)
		}
	}
	return nil
}

func searchable(name string) string { return strings.ToLower(strings.Join(strings.Fields(name), " ")) }

// StudentByNIS returns one roster entry; ErrNotFound when the portal does not know it.
func (db *DB) StudentByNIS(ctx context.Context, nis string) (Student, error) {
	s, err := scanStudent(db.sql.QueryRowContext(ctx, `SELECT `+studentColumns+` FROM students WHERE nis = $1`, nis))
	if errors.Is(err, sql.ErrNoRows) {
		return Student{}, fmt.Errorf("store: student %s: %w", nis, ErrNotFound)
	}
	if err != nil {
		return Student{}, fmt.Errorf("store: student %s: %w", nis, err)
	}
	return s, nil
}

// DeleteStudent removes a roster entry (after the billing service deleted the student).
func (db *DB) DeleteStudent(ctx context.Context, nis string) error {
	return db.InTx(ctx, func(tx *sql.Tx) error { return DeleteStudentTx(ctx, tx, nis) })
}

// DeleteStudentTx is DeleteStudent inside tx.
func DeleteStudentTx(ctx context.Context, tx *sql.Tx, nis string) error {
	if err := rosterChanged(ctx, tx); err != nil {
		return fmt.Errorf("store: delete student %s: %w", nis, err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM students WHERE nis = $1`, nis); err != nil {
		return fmt.Errorf("store: delete student %s: %w", nis, err)
	}
	return nil
}

// rosterChanged moves the ledger's change sequence on in a transaction that writes the
// roster: what the ledger's readers show and filter by (a student's name, class) is the
// roster's as much as the components', and a page or a cache that saw the sequence at n
// is out of date once it moves. It is the transaction's first write, so on PostgreSQL it
// takes the ledger's write lock (the ledger_state row) before any student row, in the
// order the ledger's own writes take them: two writers never wait on each other's rows.
func rosterChanged(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `UPDATE ledger_state SET change_seq = change_seq + 1 WHERE name = 'ledger'`)
	return err
}

// ListStudents returns a page of the roster ordered by class then NIS, and the total
// number of entries that match.
func (db *DB) ListStudents(ctx context.Context, f StudentFilter) ([]Student, int, error) {
	var where []string
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	if q := strings.TrimSpace(f.Query); q != "" {
		like := "%" + escapeLike(searchable(q)) + "%"
		where = append(where, fmt.Sprintf(`(nis LIKE %s ESCAPE '\' OR name_search LIKE %s ESCAPE '\')`,
			arg(escapeLike(q)+"%"), arg(like)))
	}
	if f.Class != "" {
		where = append(where, "description = "+arg(f.Class))
	}
	if len(f.Statuses) > 0 {
		ph := make([]string, len(f.Statuses))
		for i, st := range f.Statuses {
			ph[i] = arg(st)
		}
		where = append(where, "status IN ("+strings.Join(ph, ", ")+")")
	}
	cond := ""
	if len(where) > 0 {
		cond = " WHERE " + strings.Join(where, " AND ")
	}
	var total int
	if err := db.sql.QueryRowContext(ctx, `SELECT COUNT(*) FROM students`+cond, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("store: count students: %w", err)
	}
	limit := f.Limit
	if limit <= 0 {
		limit = 50
	}
	order := "description, nis"
	if len(f.ClassOrder) > 0 {
		var b strings.Builder
		b.WriteString("CASE description")
		for i, c := range f.ClassOrder {
			fmt.Fprintf(&b, " WHEN %s THEN %d", arg(c), i)
		}
		fmt.Fprintf(&b, " ELSE %d END, description, nis", len(f.ClassOrder))
		order = b.String()
	}
	rows, err := db.sql.QueryContext(ctx, `SELECT `+studentColumns+` FROM students`+cond+
		` ORDER BY `+order+` LIMIT `+arg(limit)+` OFFSET `+arg(max(f.Offset, 0)), args...)
	if err != nil {
		return nil, 0, fmt.Errorf("store: list students: %w", err)
	}
	defer rows.Close()
	var out []Student
	for rows.Next() {
		s, err := scanStudent(rows)
		if err != nil {
			return nil, 0, fmt.Errorf("store: list students: %w", err)
		}
		out = append(out, s)
	}
	return out, total, rows.Err()
}

func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// Classes lists the distinct classes (descriptions) of the roster, for filters.
func (db *DB) Classes(ctx context.Context) ([]string, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT DISTINCT description FROM students WHERE description <> '' ORDER BY description`)
	if err != nil {
		return nil, fmt.Errorf("store: classes: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, fmt.Errorf("store: classes: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// StudentsByNIS returns the roster entries of the given NIS that the portal knows, keyed by
// NIS; unknown ones are simply absent. It queries in slices so any number of NIS works.
func (db *DB) StudentsByNIS(ctx context.Context, nis []string) (map[string]Student, error) {
	out := make(map[string]Student, len(nis))
	const chunk = 500
	for start := 0; start < len(nis); start += chunk {
		part := nis[start:min(start+chunk, len(nis))]
		ph := make([]string, len(part))
		args := make([]any, len(part))
		for i, n := range part {
			ph[i], args[i] = fmt.Sprintf("$%d", i+1), n
		}
		rows, err := db.sql.QueryContext(ctx, `SELECT `+studentColumns+` FROM students WHERE nis IN (`+strings.Join(ph, ",")+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("store: students by NIS: %w", err)
		}
		for rows.Next() {
			s, err := scanStudent(rows)
			if err != nil {
				rows.Close()
				return nil, fmt.Errorf("store: students by NIS: %w", err)
			}
			out[s.NIS] = s
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("store: students by NIS: %w", err)
		}
	}
	return out, nil
}

// AllStudents calls fn for every roster entry in NIS order, streaming, for reports and
// uploads that need the whole roster without holding a page in the caller.
func (db *DB) AllStudents(ctx context.Context, fn func(Student) error) error {
	rows, err := db.sql.QueryContext(ctx, `SELECT `+studentColumns+` FROM students ORDER BY nis`)
	if err != nil {
		return fmt.Errorf("store: all students: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		s, err := scanStudent(rows)
		if err != nil {
			return fmt.Errorf("store: all students: %w", err)
		}
		if err := fn(s); err != nil {
			return err
		}
	}
	return rows.Err()
}

// SetStudentTotals records the outstanding total and overdue count computed from the
// student's bills at time at.
func (db *DB) SetStudentTotals(ctx context.Context, nis string, outstanding int64, overdue int, at time.Time) error {
	if _, err := db.sql.ExecContext(ctx, `UPDATE students SET outstanding = $1, overdue_count = $2, totals_at = $3 WHERE nis = $4`,
		outstanding, overdue, Time(at), nis); err != nil {
		return fmt.Errorf("store: student totals %s: %w", nis, err)
	}
	return nil
}
