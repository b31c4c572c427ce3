package chromium

import (
	"os"
	"path/filepath"
	"testing"
)

// fakeBrowsers puts executables of the given names in a folder that becomes the whole PATH.
func fakeBrowsers(t *testing.T, names ...string) string {
	dir := t.TempDir()
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir)
	t.Setenv("PORTAL_CHROMIUM", "")
	return dir
}

func TestLookupPrefersTheHeadlessShell(t *testing.T) {
	dir := fakeBrowsers(t, "chromium", "chromium-headless-shell")
	if got, want := Lookup(), filepath.Join(dir, "chromium-headless-shell"); got != want {
		t.Fatalf("Lookup() = %q, want %q", got, want)
	}
}

func TestLookupFallsBackToChromium(t *testing.T) {
	dir := fakeBrowsers(t, "chromium")
	if got, want := Lookup(), filepath.Join(dir, "chromium"); got != want {
		t.Fatalf("Lookup() = %q, want %q", got, want)
	}
}

func TestLookupHonoursPortalChromium(t *testing.T) {
	dir := fakeBrowsers(t, "chromium-headless-shell", "my-chrome")
	t.Setenv("PORTAL_CHROMIUM", "my-chrome")
	if got, want := Lookup(), filepath.Join(dir, "my-chrome"); got != want {
		t.Fatalf("Lookup() = %q, want %q", got, want)
	}
}

func TestLookupWithoutABrowser(t *testing.T) {
	fakeBrowsers(t)
	if got := Lookup(); got != "" {
		t.Fatalf("Lookup() = %q with no browser on PATH", got)
	}
}
