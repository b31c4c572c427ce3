// Package storetest gives other packages' tests a real, migrated database: a SQLite file
// of their own, or, when PORTAL_TEST_POSTGRES_URL is set, a PostgreSQL schema of their own
// (so tests and engineers sharing one PostgreSQL never see each other's rows).
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, for creating and dropping schemas

	"github.com/sekolah/portal/internal/store"
)

// PostgresEnv names the variable holding the URL of a PostgreSQL database tests may use;
// tests that need it are skipped when it is empty.
const PostgresEnv = "PORTAL_TEST_POSTGRES_URL"

// OpenTest opens a migrated SQLite file in t.TempDir() and closes it when the
// test ends.
func OpenTest(t testing.TB) *store.DB {
	t.Helper()
	return Open(t, "sqlite:"+filepath.Join(t.TempDir(), "portal.db"))
}

// OpenPostgres opens the store in a fresh PostgreSQL schema of its own, dropped after the
// test; the test is skipped when PORTAL_TEST_POSTGRES_URL is not set.
func OpenPostgres(t testing.TB) *store.DB {
	t.Helper()
	db := Open(t, PostgresURL(t))
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
	db, err := store.Open(context.Background(), databaseURL)
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
// dropped after the test, and returns a URL whose connections use it. The test is
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

	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}
