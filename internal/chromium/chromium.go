// Package chromium finds the headless browser the browser tests drive.
package chromium

import (
	"os"
	"os/exec"
	"testing"
)

// Names are the programs tried in order after PORTAL_CHROMIUM: Debian's
// chromium-headless-shell first (the same Blink as the chromium package without the
// browser's user interface; a page load costs it about 40% less CPU, and CPU is what the
// test suite waits on), then a full Chromium. CI installs both packages.
var Names = []string{"chromium-headless-shell", "chromium", "chromium-browser", "google-chrome"}

// Lookup returns the path of the first browser found, or "" when there is none.
func Lookup() string {
	for _, name := range append([]string{os.Getenv("PORTAL_CHROMIUM")}, Names...) {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Find returns the browser's path for a test. Without one the test is skipped, unless
// PORTAL_REQUIRE_BROWSER=1 (CI), where a missing browser fails it.
func Find(t testing.TB) string {
	t.Helper()
	if p := Lookup(); p != "" {
		return p
	}
	if os.Getenv("PORTAL_REQUIRE_BROWSER") == "1" {
		t.Fatal("no chromium found but PORTAL_REQUIRE_BROWSER=1")
	}
	t.Skip("chromium not installed (apt-get install chromium-headless-shell); browser test skipped")
	return ""
}
