package reports_test

import (
	"os"
	"testing"

	"github.com/sekolah/portal/internal/store/storetest"
)

// TestMain: the tests fill demo-school ledgers, which churns the heap, so they collect
// less often (storetest.CollectLess; the benchmarks keep the default).
func TestMain(m *testing.M) {
	storetest.CollectLess()
	os.Exit(m.Run())
}
