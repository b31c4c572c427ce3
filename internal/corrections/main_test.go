package corrections_test

import (
	"testing"

	"github.com/sekolah/portal/internal/store/storetest"
)

// TestMain runs six tests at once: the fault tests mostly wait out the client's timeout
// and the settle time (storetest.SetParallel).
func TestMain(m *testing.M) {
	storetest.SetParallel(6)
	m.Run()
}
