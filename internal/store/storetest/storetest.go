// Package storetest gives other packages' tests a real, migrated database: a SQLite file
// of their own, or, when PORTAL_TEST_POSTGRES_URL is set, a PostgreSQL schema of their own
// while they run (so tests and engineers sharing one PostgreSQL never see each other's
// rows): a new empty one (PostgresURL), or a migrated one from a pool the test binaries
// share (MigratedPostgresURL).
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, for creating and dropping schemas

	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/store"
)

// RealTime is the clock of the databases opened here: the system's, through
// internal/clock (a test that needs a fixed day gives its services a fixed clock; the
// rows the store stamps itself keep the real time, as the job runners' leases need).
var RealTime = clock.System(time.UTC).Now

// PostgresEnv names the variable holding the URL of a PostgreSQL database tests may use;
// tests that need it are skipped when it is empty.
const PostgresEnv = "PORTAL_TEST_POSTGRES_URL"

// OpenTest opens a migrated SQLite file in t.TempDir() and closes it when the
// test ends. The file starts as a copy of one migrated once per test binary: running
// every migration again costs each test tens of milliseconds of SQL parsing, under the
// store's process-wide lock on opening SQLite files, so parallel tests waited on it in
// turn. store.Open still runs the migrations on the copy, and finds nothing to do.
func OpenTest(t testing.TB) *store.DB {
	t.Helper()
	path := filepath.Join(t.TempDir(), "portal.db")
	if b := migratedSQLite(); b != nil {
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatalf("copy migrated test database: %v", err)
		}
	}
	return Open(t, "sqlite:"+path)
}

var migratedSQLite = sync.OnceValue(func() []byte {
	dir, err := os.MkdirTemp("", "storetest-")
	if err != nil {
		return nil
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "portal.db")
	db, err := store.Open(context.Background(), "sqlite:"+path, RealTime)
	if err != nil {
		return nil
	}
	if err := db.Close(); err != nil {
		return nil
	}
	// Closing the last connection checkpoints the write-ahead log into the file and
	// removes it; if one is left, the file alone is not the whole database.
	if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > 0 {
		return nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	return b
})

// OpenPostgres opens the store in a migrated PostgreSQL schema of its own
// (MigratedPostgresURL); the test is skipped when PORTAL_TEST_POSTGRES_URL is not set.
func OpenPostgres(t testing.TB) *store.DB {
	t.Helper()
	db := Open(t, MigratedPostgresURL(t))
	if db.Dialect() != store.DialectPostgres {
		t.Fatalf("Dialect() = %q, want postgres", db.Dialect())
	}
	return db
}

// Open opens (and migrates) the database at databaseURL and closes it when the test ends.
// Several calls with the same URL are several connection pools on one database, as
// several portal instances have.
func Open(t testing.TB, databaseURL string) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), databaseURL, RealTime)
	if err != nil {
		t.Fatalf("open test database: %v", err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("close test database: %v", err)
		}
	})
	return db
}

// PostgresURL creates an empty schema in the database at PORTAL_TEST_POSTGRES_URL,
// dropped after the test, and returns a URL whose connections use it: for tests of
// migrating (see MigratedPostgresURL for the others). The test is
// skipped when the variable is not set.
func PostgresURL(t testing.TB) string {
	t.Helper()
	base := os.Getenv(PostgresEnv)
	if base == "" {
		t.Skip(PostgresEnv + " not set")
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	schema := "test_" + hex.EncodeToString(b)

	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(`CREATE SCHEMA ` + schema); err != nil {
		admin.Close()
		t.Fatalf("create schema: %v", err)
	}
	// Registered before the pools that use the schema, so it runs after they are closed.
	t.Cleanup(func() {
		defer admin.Close()
		if _, err := admin.Exec(`DROP SCHEMA ` + schema + ` CASCADE`); err != nil {
			t.Errorf("drop schema: %v", err)
		}
	})

	u, err := withSchema(base, schema)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
