package web_test

import (
	"os"
	"testing"

	"github.com/sekolah/portal/internal/portaltest"
)

// TestMain closes the one Chromium the browser tests share once they have all run.
func TestMain(m *testing.M) {
	code := m.Run()
	portaltest.CloseBrowser()
	os.Exit(code)
}
