package portaltest

import "testing"

func TestScreenshotDir(t *testing.T) {
	for _, tc := range []struct {
		value, dir string
		refused    bool
	}{
		{"", "", false},
		{"docs", "", false},
		{"/tmp/shots/", "/tmp/shots", false},
		{"1", "", true},
		{"shots", "", true},
		{"./shots", "", true},
	} {
		t.Setenv("PORTAL_SCREENSHOTS", tc.value)
		dir, err := ScreenshotDir()
		if (err != nil) != tc.refused || dir != tc.dir {
			t.Errorf("PORTAL_SCREENSHOTS=%q: dir %q, err %v; want dir %q, refused %v", tc.value, dir, err, tc.dir, tc.refused)
		}
	}
}
