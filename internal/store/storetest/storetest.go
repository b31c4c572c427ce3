// Package storetest gives other packages' tests a real, migrated database.
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

	"github.com/sekolah/portal/internal/store"
)

// OpenTest opens a migrated SQLite file in t.TempDir() and closes it when the
// test ends.
func OpenTest(t testing.TB) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), "sqlite:"+filepath.Join(t.TempDir(), "portal.db"))
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

// PostgresEnv names the variable that points tests at a PostgreSQL database.
const PostgresEnv = "PORTAL_TEST_POSTGRES_URL"

// OpenPostgres opens a migrated store in a fresh schema of the PostgreSQL database named
// by PORTAL_TEST_POSTGRES_URL, dropped when the test ends; it skips the test when the
// variable is not set.
func OpenPostgres(t testing.TB) *store.DB {
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
	t.Cleanup(func() { admin.Close() })
	if _, err := admin.Exec(`CREATE SCHEMA ` + schema); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	db, err := store.Open(context.Background(), u.String())
	if err != nil {
		t.Fatalf("open postgres: %v", err)
	}
	// Cleanups run last-in first-out: the store closes before its schema is dropped.
	t.Cleanup(func() {
		if _, err := admin.Exec(`DROP SCHEMA ` + schema + ` CASCADE`); err != nil {
			t.Errorf("drop schema: %v", err)
		}
	})
	t.Cleanup(func() { db.Close() })
	return db
}
