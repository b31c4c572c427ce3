// Package storetest gives other packages' tests a real, migrated database.
package storetest

import (
	"context"
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
