package sandbox

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"

	_ "modernc.org/sqlite" // registers the pure-Go "sqlite" driver
)

// store holds the sandbox state in SQLite. One connection serialises every
// statement, which keeps transactions simple and makes the shared in-memory
// database safe without table-lock retries.
type store struct {
	db *sql.DB
}

// Dates of components are stored twice: the timestamp as given (unix seconds)
// and its calendar day as YYYYMMDD, so state and range filters are plain
// integer comparisons on indexes. created_at and paid_at are unix nanoseconds.
const schema = `
CREATE TABLE IF NOT EXISTS students (
	id          INTEGER PRIMARY KEY,
	bill_id     TEXT NOT NULL UNIQUE,
	nis         TEXT NOT NULL UNIQUE,
	name        TEXT NOT NULL,
	key_name    TEXT NOT NULL,
	phone       TEXT NOT NULL DEFAULT '',
	email       TEXT NOT NULL DEFAULT '',
	description TEXT NOT NULL DEFAULT '',
	created_at  INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS components (
	seq          INTEGER PRIMARY KEY,
	id           TEXT NOT NULL UNIQUE,
	student_id   INTEGER NOT NULL REFERENCES students(id),
	account_code TEXT NOT NULL,
	name         TEXT NOT NULL,
	amount       INTEGER NOT NULL,
	penalty      INTEGER NOT NULL,
	active_at    INTEGER,
	active_day   INTEGER,
	due_at       INTEGER NOT NULL,
	due_day      INTEGER NOT NULL,
	expiry_at    INTEGER NOT NULL,
	expiry_day   INTEGER NOT NULL,
	paid_at      INTEGER,
	paid_day     INTEGER,
	amount_paid  INTEGER NOT NULL DEFAULT 0,
	ref_number   TEXT,
	notes        TEXT NOT NULL DEFAULT '',
	created_at   INTEGER NOT NULL
);
-- paid_day is NULL exactly when the component is unpaid, so every state test
-- reads it. The two *_created indexes return pages newest first and carry the
-- filter columns, so a page is found without touching the table.
CREATE INDEX IF NOT EXISTS components_created
	ON components(created_at, id, paid_day, due_day, expiry_day);
CREATE INDEX IF NOT EXISTS components_account_created
	ON components(account_code, created_at, id, paid_day, due_day, expiry_day);
CREATE INDEX IF NOT EXISTS components_student ON components(student_id, created_at, id);
CREATE INDEX IF NOT EXISTS components_unpaid_due
	ON components(due_day, expiry_day, created_at, id) WHERE paid_day IS NULL;
CREATE INDEX IF NOT EXISTS components_unpaid_account_due
	ON components(account_code, due_day, expiry_day, created_at, id) WHERE paid_day IS NULL;
CREATE INDEX IF NOT EXISTS components_paid_day
	ON components(paid_day, created_at, id) WHERE paid_day IS NOT NULL;
CREATE INDEX IF NOT EXISTS components_ref ON components(ref_number) WHERE ref_number IS NOT NULL;
CREATE TABLE IF NOT EXISTS reminders (
	id           INTEGER PRIMARY KEY,
	component_id TEXT NOT NULL UNIQUE,
	bill_key     TEXT NOT NULL,
	due_at       INTEGER NOT NULL,
	sent_at      INTEGER NOT NULL,
	phone        TEXT NOT NULL,
	email        TEXT NOT NULL
);
`

// openStore opens the SQLite file at path, or a private in-memory database
// when path is empty, and creates the schema.
func openStore(path string) (*store, error) {
	var dsn string
	if path == "" {
		var b [8]byte
		_, _ = rand.Read(b[:])
		dsn = "file:sandbox-" + hex.EncodeToString(b[:]) + "?mode=memory&cache=shared&_pragma=foreign_keys(1)"
	} else {
		dsn = "file:" + (&url.URL{Path: path}).EscapedPath() +
			"?_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=busy_timeout(5000)"
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("sandbox: open store: %w", err)
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	if _, err := db.Exec(schema); err != nil {
		db.Close()
		return nil, fmt.Errorf("sandbox: create schema: %w", err)
	}
	return &store{db: db}, nil
}

func (st *store) close() error { return st.db.Close() }

// empty reports whether no student is stored yet.
func (st *store) empty(ctx context.Context) (bool, error) {
	var n int
	if err := st.db.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM students LIMIT 1)`).Scan(&n); err != nil {
		return false, fmt.Errorf("count students: %w", err)
	}
	return n == 0, nil
}

// errNotFound marks a store lookup of an unknown student or component.
var errNotFound = errors.New("not found")

// inTx runs fn in a transaction, committed when fn returns nil.
func (st *store) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := st.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}
