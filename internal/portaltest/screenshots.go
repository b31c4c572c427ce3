package portaltest

import (
	"fmt"
	"os"
	"path/filepath"
)

// ScreenshotsDocs is the value of PORTAL_SCREENSHOTS that asks web's TestDocsScreenshots to
// renew the README's screenshots (and no other test to save any).
const ScreenshotsDocs = "docs"

// ScreenshotDir reads PORTAL_SCREENSHOTS: "" saves none, "docs" renews the README's, and
// anything else must be an absolute folder. A relative value is refused: each test binary
// runs in its own package's folder, so PORTAL_SCREENSHOTS=1 once wrote 22 screenshots into
// web/1 that were then committed.
func ScreenshotDir() (dir string, err error) {
	v := os.Getenv("PORTAL_SCREENSHOTS")
	switch {
	case v == "" || v == ScreenshotsDocs:
		return "", nil
	case !filepath.IsAbs(v):
		return "", fmt.Errorf("PORTAL_SCREENSHOTS=%q is not an absolute folder: give one (e.g. PORTAL_SCREENSHOTS=$PWD/shots), or %q to renew the README's screenshots", v, ScreenshotsDocs)
	}
	return filepath.Clean(v), nil
}

// SavesScreenshots reports whether the browser tests are asked to save screenshots (to a
// folder, or the README's).
func SavesScreenshots() bool { return os.Getenv("PORTAL_SCREENSHOTS") != "" }
