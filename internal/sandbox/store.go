package sandbox

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"

	"github.com/sekolah/portal/internal/sqlite"
)

// store holds the sandbox state in SQLite. One connection serialises every
// statement, which keeps transactions simple and makes the shared in-memory
// database safe without table-lock retries.
type store struct {
	db *sql.DB
}

// Dates of components are stored twice: the timestamp as given (unix seconds)
// and its calendar day as YYYYMMDD, so state and range filters are plain
// integer comparisons on indexes. created_at, updated_at, paid_at and
// deleted_at are unix nanoseconds.
//
// Nothing is ever removed: a deleted student keeps its row (deleted_at set,
// its NIS free for a new student) so that its deleted components still name
// it, and a deleted component stays searchable with state=deleted.
const schema = `
CREATE TABLE IF NOT EXISTS students (
	id          INTEGER PRIMARY KEY,
	bill_id     TEXT NOT NULL UNIQUE,
	nis         TEXT NOT NULL,
	name        TEXT NOT NULL,
	key_name    TEXT NOT NULL,
	phone       TEXT NOT NULL DEFAULT '',
	email       TEXT NOT NULL DEFAULT '',
	description TEXT NOT NULL DEFAULT '',
	created_at  INTEGER NOT NULL,
	deleted_at  INTEGER
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
	created_at   INTEGER NOT NULL,
	updated_at   INTEGER NOT NULL DEFAULT 0,
	deleted_at   INTEGER
);
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

// indexes are created after any migration, so an older file gets them too.
// paid_day is NULL exactly when the component is unpaid and deleted_at when
// it is not deleted, so every state test reads those two. The two *_created
// indexes return pages newest first and carry the filter columns, so a page
// is found without touching the table.
const indexes = `
CREATE UNIQUE INDEX IF NOT EXISTS students_live_nis ON students(nis) WHERE deleted_at IS NULL;
CREATE INDEX IF NOT EXISTS students_live_created ON students(created_at, id) WHERE deleted_at IS NULL;
CREATE INDEX IF NOT EXISTS components_created_v2
	ON components(created_at, id, paid_day, deleted_at, due_day, expiry_day);
CREATE INDEX IF NOT EXISTS components_account_created_v2
	ON components(account_code, created_at, id, paid_day, deleted_at, due_day, expiry_day);
CREATE INDEX IF NOT EXISTS components_student ON components(student_id, created_at, id);
CREATE INDEX IF NOT EXISTS components_unpaid_due_v2
	ON components(due_day, expiry_day, created_at, id) WHERE paid_day IS NULL AND deleted_at IS NULL;
CREATE INDEX IF NOT EXISTS components_unpaid_account_due_v2
	ON components(account_code, due_day, expiry_day, created_at, id) WHERE paid_day IS NULL AND deleted_at IS NULL;
CREATE INDEX IF NOT EXISTS components_paid_day
	ON components(paid_day, created_at, id) WHERE paid_day IS NOT NULL;
CREATE INDEX IF NOT EXISTS components_deleted
	ON components(created_at, id) WHERE deleted_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS components_ref ON components(ref_number) WHERE ref_number IS NOT NULL;
`

// schemaVersion is kept in PRAGMA user_version. Version 1 (contract v1) had
// no deleted state: students were removed outright and their NIS was unique.
const schemaVersion = 2

// migrateV1 brings a version 1 file to version 2: students are rebuilt (the
// NIS is unique among live students only), components gain updated_at and
// deleted_at, and the indexes that lacked deleted_at are replaced. It runs
// with foreign keys off, as SQLite requires for rebuilding a referenced table.
const migrateV1 = `
CREATE TABLE students_v2 (
	id          INTEGER PRIMARY KEY,
	bill_id     TEXT NOT NULL UNIQUE,
	nis         TEXT NOT NULL,
	name        TEXT NOT NULL,
	key_name    TEXT NOT NULL,
	phone       TEXT NOT NULL DEFAULT '',
	email       TEXT NOT NULL DEFAULT '',
	description TEXT NOT NULL DEFAULT '',
	created_at  INTEGER NOT NULL,
	deleted_at  INTEGER
);
INSERT INTO students_v2 (id, bill_id, nis, name, key_name, phone, email, description, created_at)
	SELECT id, bill_id, nis, name, key_name, phone, email, description, created_at FROM students;
DROP TABLE students;
ALTER TABLE students_v2 RENAME TO students;
ALTER TABLE components ADD COLUMN updated_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE components ADD COLUMN deleted_at INTEGER;
UPDATE components SET updated_at = coalesce(paid_at, created_at);
DROP INDEX IF EXISTS components_created;
DROP INDEX IF EXISTS components_account_created;
DROP INDEX IF EXISTS components_unpaid_due;
DROP INDEX IF EXISTS components_unpaid_account_due;
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
	connector, err := sqlite.Connector(dsn)
	if err != nil {
		return nil, fmt.Errorf("sandbox: open store: %w", err)
	}
	db := sql.OpenDB(connector)
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	if err := prepareSchema(db); err != nil {
		db.Close()
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	return &store{db: db}, nil
}

// prepareSchema creates the tables of a new store or migrates an older file,
// then creates the indexes.
func prepareSchema(db *sql.DB) error {
	var version, tables int
	if err := db.QueryRow(`PRAGMA user_version`).Scan(&version); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'students'`).Scan(&tables); err != nil {
		return fmt.Errorf("read schema: %w", err)
	}
	switch {
	case tables == 0:
		if _, err := db.Exec(schema); err != nil {
			return fmt.Errorf("create schema: %w", err)
		}
	case version < schemaVersion:
		if err := migrate(db); err != nil {
			return fmt.Errorf("migrate the store to version %d: %w", schemaVersion, err)
		}
	case version > schemaVersion:
		return fmt.Errorf("the store is of a newer version (%d) than this sandbox knows (%d)", version, schemaVersion)
	}
	if _, err := db.Exec(indexes); err != nil {
		return fmt.Errorf("create indexes: %w", err)
	}
	if _, err := db.Exec(fmt.Sprintf(`PRAGMA user_version = %d`, schemaVersion)); err != nil {
		return fmt.Errorf("write schema version: %w", err)
	}
	return nil
}

// migrate runs migrateV1 in one transaction; the pool's only connection
// carries the foreign-key pragma around it.
func migrate(db *sql.DB) error {
	if _, err := db.Exec(`PRAGMA foreign_keys = OFF`); err != nil {
		return err
	}
	defer db.Exec(`PRAGMA foreign_keys = ON`)
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.Exec(migrateV1); err != nil {
		return err
	}
	var broken int
	if err := tx.QueryRow(`SELECT count(*) FROM pragma_foreign_key_check`).Scan(&broken); err != nil {
		return err
	}
	if broken > 0 {
		return fmt.Errorf("%d rows lost their student", broken)
	}
	return tx.Commit()
}

func (st *store) close() error { return st.db.Close() }

// saveTo writes a consistent copy of the store to a new SQLite file at path.
func (st *store) saveTo(ctx context.Context, path string) error {
	if _, err := st.db.ExecContext(ctx, `VACUUM INTO ?`, path); err != nil {
		return fmt.Errorf("sandbox: save the store: %w", err)
	}
	return nil
}

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
