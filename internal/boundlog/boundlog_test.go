package boundlog_test

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/sekolah/portal/internal/boundlog"
)

// TestLinesAreBounded: a value of any kind (a string, an error, bytes, a group's, one
// given to With) longer than MaxValue is cut, whole characters kept and the rest counted;
// short values and other kinds pass as they are.
func TestLinesAreBounded(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	log := slog.New(boundlog.New(slog.NewJSONHandler(&buf, nil)))
	long := strings.Repeat("é", 25_000) // 50,000 bytes
	log.With("with", long).Warn("counter search", "q", long, "err", errors.New("search "+long), "raw", []byte(long),
		slog.Group("req", "path", "/students/"+long), "n", 7, "short", "ok")
	line := buf.String()
	if n := len(line); n > 8*boundlog.MaxValue {
		t.Fatalf("a line of %d bytes", n)
	}
	for _, want := range []string{`"n":7`, `"short":"ok"`, `"q":"ééé`, "…(48976 more bytes)", "…(48984 more bytes)", "…(48986 more bytes)"} {
		if !strings.Contains(line, want) {
			t.Errorf("the line lacks %s:\n%s", want, line)
		}
	}
	if n := strings.Count(line, "more bytes)"); n != 5 {
		t.Errorf("%d values cut, want 5 (with, q, err, raw, path)", n)
	}
	if strings.Contains(line, "\\ufffd") || strings.Contains(line, "\ufffd") {
		t.Error("a character was cut in two")
	}
	// Wrapping twice bounds once.
	h := boundlog.New(slog.NewJSONHandler(&buf, nil))
	if boundlog.New(h) != h {
		t.Error("wrapped twice")
	}
}
