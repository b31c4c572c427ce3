package web_test

import (
	"os"
	"testing"

	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/store/storetest"
)

// TestMain runs the tests of this package six at a time unless -parallel says otherwise:
// each starts a portal of its own and spends most of its time waiting on loopback calls,
// the sandbox and the shared browser, so more tests than cores keep the cores busy. It
// closes the one Chromium the browser tests share once they have all run. Its portals
// fill schools and ledgers, so it collects less often (storetest.CollectLess).
func TestMain(m *testing.M) {
	storetest.SetParallel(6)
	storetest.CollectLess()
	code := m.Run()
	portaltest.CloseBrowser()
	os.Exit(code)
}
