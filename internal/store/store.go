// Package store is the portal's database access: one *DB over SQLite or PostgreSQL,
// migrated on open, with portable SQL ($n placeholders, ids made in Go, UTC timestamps).
package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
	"modernc.org/sqlite"

	sqlite3 "modernc.org/sqlite/lib"

	sqlitedb "github.com/sekolah/portal/internal/sqlite"
)

// Dialect names returned by DB.Dialect.
const (
	DialectSQLite   = "sqlite"
	DialectPostgres = "postgres"
)

// Errors callers branch on; wrapped with context, test them with errors.Is.
var (
	// ErrNotFound means the row asked for does not exist.
	ErrNotFound = errors.New("store: not found")
	// ErrConflict means a unique constraint refused the write (a duplicate).
	ErrConflict = errors.New("store: conflict")
	// ErrLastAdmin means the change would leave no enabled admin account.
	ErrLastAdmin = errors.New("store: would leave no enabled admin")
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// DB is the portal's database handle; safe for concurrent use.
type DB struct {
	sql     *sql.DB
	dialect string
	// now is the portal's clock (clock.Clock.Func), which stamps the rows the store dates
	// itself (created_at, updated_at). The store reads no time of its own: it is below
	// internal/clock.
	now func() time.Time
	// writer is SQLite's one writer's turn, taken by InTx before BEGIN IMMEDIATE: a
	// transaction waiting for the file's write lock inside SQLite sleeps in steps of 1, 2,
	// 5, 10, … ms (its busy handler) and so starts up to 25 ms after the lock was freed;
	// waiting here, it starts as soon as the previous one commits. Nil on PostgreSQL.
	writer chan struct{}
}

// Open connects to databaseURL and applies any pending migrations. now is the portal's
// clock (required): the rows the store stamps itself are stamped with it.
//
// SQLite: "sqlite:<path>", "file:<path>[?params]" or a plain path (the parent
// directory is created). PostgreSQL: "postgres://…" or "postgresql://…".
func Open(ctx context.Context, databaseURL string, now func() time.Time) (*DB, error) {
	if now == nil {
		return nil, errors.New("store: open: no clock (the portal's clock.Clock.Func)")
	}
	db, err := open(databaseURL)
	if err != nil {
		return nil, err
	}
	db.now = now
	if db.dialect == DialectSQLite {
		// SQLite has no session lock, and a new file's first connection
		// switching it to WAL fails with SQLITE_BUSY beside another; at least
		// stores opened in one process (tests, a command beside the server)
		// take turns.
		sqliteOpenMu.Lock()
		defer sqliteOpenMu.Unlock()
	}
	if err := db.Ping(ctx); err != nil {
		db.Close()
		return nil, err
	}
	if err := db.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

var sqliteOpenMu sync.Mutex

func open(databaseURL string) (*DB, error) {
	if databaseURL == "" {
		return nil, errors.New("store: empty database URL")
	}
	lower := strings.ToLower(databaseURL)
	if strings.HasPrefix(lower, "postgres://") || strings.HasPrefix(lower, "postgresql://") {
		sqlDB, err := sql.Open("pgx", databaseURL)
		if err != nil {
			return nil, fmt.Errorf("store: open postgres: %w", err)
		}
		sqlDB.SetMaxOpenConns(10)
		sqlDB.SetMaxIdleConns(5)
		sqlDB.SetConnMaxIdleTime(5 * time.Minute)
		return &DB{sql: sqlDB, dialect: DialectPostgres}, nil
	}

	dsn, path, err := sqliteDSN(databaseURL)
	if err != nil {
		return nil, err
	}
	if path != "" {
		if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
			return nil, fmt.Errorf("store: create database directory: %w", err)
		}
	}
	connector, err := sqlitedb.Connector(dsn)
	if err != nil {
		return nil, fmt.Errorf("store: open sqlite: %w", err)
	}
	sqlDB := sql.OpenDB(connector)
	// WAL lets readers run beside the one writer; more connections than that
	// only queue on the write lock, so keep the pool small.
	sqlDB.SetMaxOpenConns(4)
	sqlDB.SetMaxIdleConns(4)
	sqlDB.SetConnMaxIdleTime(0)
	sqlDB.SetConnMaxLifetime(0)
	return &DB{sql: sqlDB, dialect: DialectSQLite, writer: make(chan struct{}, 1)}, nil
}

// sqliteParams are added to every SQLite DSN. _txlock=immediate takes the write
// lock at BEGIN so a read-then-write transaction waits (busy_timeout) instead of
// failing with SQLITE_BUSY when it upgrades; _timezone=UTC makes times read back
// in time.UTC. A 32 MiB page cache per connection (the default is 2 MiB) keeps the
// ledger's indexes (a million components is ~800 MB of table and indexes) from being
// read back from the file on every write and page; it is filled only as used.
var sqliteParams = []string{
	"_pragma=busy_timeout(5000)",
	"_pragma=cache_size(-32768)",
	"_pragma=journal_mode(WAL)",
	"_pragma=foreign_keys(1)",
	"_pragma=synchronous(NORMAL)",
	"_txlock=immediate",
	"_time_format=sqlite",
	"_timezone=UTC",
}

// sqliteDSN turns the accepted SQLite spellings into a driver DSN and the file
// path (empty for in-memory databases).
func sqliteDSN(databaseURL string) (dsn, path string, err error) {
	rest := databaseURL
	if strings.HasPrefix(strings.ToLower(rest), "sqlite:") {
		rest = rest[len("sqlite:"):]
		rest = strings.TrimPrefix(rest, "//") // sqlite:///abs/path → /abs/path, sqlite://rel → rel
	}
	params := strings.Join(sqliteParams, "&")

	if strings.HasPrefix(rest, "file:") {
		body, query, _ := strings.Cut(rest[len("file:"):], "?")
		if strings.HasPrefix(body, "//") {
			// file://host/path: only an empty host or localhost is meaningful.
			host, p, _ := strings.Cut(body[2:], "/")
			if host != "" && host != "localhost" {
				return "", "", fmt.Errorf("store: sqlite file URL with host %q", host)
			}
			body = "/" + p
		}
		p, err := url.PathUnescape(body)
		if err != nil {
			return "", "", fmt.Errorf("store: sqlite file URL: %w", err)
		}
		q, _ := url.ParseQuery(query)
		if p != "" && p != ":memory:" && q.Get("mode") != "memory" {
			path = p
		}
		sep := "?"
		if query != "" {
			sep = "?" + query + "&"
		}
		return "file:" + body + sep + params, path, nil
	}

	if rest == "" || strings.ContainsAny(rest, "?#") {
		return "", "", fmt.Errorf("store: unusable sqlite path %q", rest)
	}
	return rest + "?" + params, rest, nil
}

func (db *DB) migrate(ctx context.Context) error {
	fsys, err := fs.Sub(migrationFiles, "migrations")
	if err != nil {
		return fmt.Errorf("store: migrations: %w", err)
	}
	dialect := goose.DialectSQLite3
	opts := []goose.ProviderOption{goose.WithDisableGlobalRegistry(true)}
	if db.dialect == DialectPostgres {
		dialect = goose.DialectPostgres
		// Several portal instances may start at once against one database: the first
		// migrates, the others wait on an advisory lock. The lock is the schema's, so
		// portals (and tests) on other schemas of the same database do not wait on each
		// other, and a waiting instance looks again every second rather than every five.
		var schema string
		if err := db.sql.QueryRowContext(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
			return fmt.Errorf("store: migration lock: %w", err)
		}
		h := fnv.New64a()
		h.Write([]byte("portal migrations\x00" + schema))
		locker, err := lock.NewPostgresSessionLocker(lock.WithLockID(int64(h.Sum64()>>1)), lock.WithLockTimeout(1, 300))
		if err != nil {
			return fmt.Errorf("store: migration lock: %w", err)
		}
		opts = append(opts, goose.WithSessionLocker(locker))
	}
	p, err := goose.NewProvider(dialect, db.sql, fsys, opts...)
	if err != nil {
		return fmt.Errorf("store: migrations: %w", err)
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("store: migrate: %w", err)
	}
	return nil
}

// MigrationsSum identifies the migrations this build applies: a hash of their names and
// contents. Two builds with the same sum make the same schema (the tests' pooled
// PostgreSQL schemas are named by it: internal/store/storetest).
var MigrationsSum = sync.OnceValue(func() string {
	h := sha256.New()
	err := fs.WalkDir(migrationFiles, "migrations", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := migrationFiles.ReadFile(path)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", path, len(b))
		h.Write(b)
		return nil
	})
	if err != nil {
		panic("store: the embedded migrations cannot be read: " + err.Error())
	}
	return hex.EncodeToString(h.Sum(nil))
})

// Ping checks the database answers.
func (db *DB) Ping(ctx context.Context) error {
	if err := db.sql.PingContext(ctx); err != nil {
		return fmt.Errorf("store: ping %s: %w", db.dialect, err)
	}
	return nil
}

// Close releases the connections.
func (db *DB) Close() error { return db.sql.Close() }

// Dialect reports DialectSQLite or DialectPostgres.
func (db *DB) Dialect() string { return db.dialect }

// SQL gives direct access for packages that keep their own queries; use $n
// placeholders, TEXT ids from NewID and UTC times from Time.
func (db *DB) SQL() *sql.DB { return db.sql }

// InTx runs fn in one transaction, committing when fn returns nil and rolling
// back otherwise (also on panic). On SQLite the transaction holds the write lock
// from its start.
func (db *DB) InTx(ctx context.Context, fn func(tx *sql.Tx) error) (err error) {
	if db.writer != nil {
		select {
		case db.writer <- struct{}{}:
			defer func() { <-db.writer }()
		case <-ctx.Done():
			return fmt.Errorf("store: begin: %w", ctx.Err())
		}
	}
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: begin: %w", err)
	}
	defer func() {
		if p := recover(); p != nil {
			_ = tx.Rollback()
			panic(p)
		}
	}()
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	return nil
}

// NewID returns a new time-ordered unique id (UUID v7).
func NewID() string {
	id, err := uuid.NewV7()
	if err != nil {
		// Only fails when the system random source does; nothing sensible continues.
		panic(fmt.Sprintf("store: uuid: %v", err))
	}
	return id.String()
}

// Time normalises t for storage: UTC at microsecond precision, which both
// engines keep exactly, so a value reads back equal to what was written.
func Time(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// Now is the store's clock now, as the store keeps times.
func (db *DB) Now() time.Time { return Time(db.now()) }

// IsUniqueViolation reports whether err is a unique or primary-key violation
// from either engine.
func IsUniqueViolation(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		code := se.Code()
		return code == sqlite3.SQLITE_CONSTRAINT_UNIQUE || code == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == "23505"
	}
	return false
}

// nullTime scans a timestamp that may arrive as time.Time, as text (SQLite
// aggregates lose the column type) or as NULL.
type nullTime struct {
	Time  time.Time
	Valid bool
}

func (n *nullTime) Scan(v any) error {
	switch x := v.(type) {
	case nil:
		*n = nullTime{}
		return nil
	case time.Time:
		*n = nullTime{Time: x.UTC(), Valid: true}
		return nil
	case string:
		return n.parse(x)
	case []byte:
		return n.parse(string(x))
	}
	return fmt.Errorf("store: cannot scan %T into a time", v)
}

func (n *nullTime) parse(s string) error {
	for _, layout := range []string{"2006-01-02 15:04:05.999999999-07:00", time.RFC3339Nano, "2006-01-02 15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			*n = nullTime{Time: t.UTC(), Valid: true}
			return nil
		}
	}
	return fmt.Errorf("store: cannot parse time %q", s)
}
