package store_test

import (
	"testing"

	"github.com/sekolah/portal/internal/store/storetest"
)

// TestMain runs six tests at once: each runs on SQLite and on PostgreSQL, whose work is
// done in a process of its own while the test waits (storetest.SetParallel).
func TestMain(m *testing.M) {
	storetest.SetParallel(6)
	m.Run()
}
