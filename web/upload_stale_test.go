package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/sekolah/portal/internal/uploads"
)

// TestUploadPollEndsWithoutStaleBanners: what the polling page swaps in once a job has
// ended (discarded, or sent) says so and polls no more: no "being checked" or "sending"
// banner, no waiting notice, no commit button left behind; a discarded upload leaves the
// list of uploads not finished.
func TestUploadPollEndsWithoutStaleBanners(t *testing.T) {
	t.Parallel()
	p, c, data := startSmallUpload(t)
	busyWords := []string{"sedang diperiksa", "sedang dikirim", "boleh meninggalkan halaman", "memeriksa sekali lagi", "menunggu layanan"}
	ended := func(step, id, state string) {
		t.Helper()
		res := c.Get("/uploads/"+id+"/status", "HX-Request", "true")
		status := res.Doc.Find(`#upload-status`)
		if got, _ := status.Attr("data-state"); got != state {
			t.Fatalf("after %s: the poll answers state %q, want %q", step, got, state)
		}
		if _, polls := status.Attr("hx-trigger"); polls {
			t.Errorf("after %s: the swapped-in status still polls", step)
		}
		text := strings.ToLower(status.Text())
		for _, w := range busyWords {
			if strings.Contains(text, w) {
				t.Errorf("after %s: the swapped-in status says %q", step, w)
			}
		}
		for _, sel := range []string{`[data-testid="upload-waiting"]`, `[data-testid="upload-commit"]`} {
			if status.Find(sel).Length() != 0 {
				t.Errorf("after %s: %s is still there", step, sel)
			}
		}
	}

	discarded := uploadIDFrom(t, postUpload(t, p, c, "components", "a.xlsx", data))
	waitUpload(t, p, discarded)
	if res := c.Post("/uploads/"+discarded+"/discard", confirmYes()); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("discard: %d", res.StatusCode)
	}
	ended("the discard", discarded, uploads.StateDiscarded)
	if res := c.Get("/uploads"); res.Doc.Find(`[data-testid="upload-`+discarded+`"]`).Length() != 0 {
		t.Error("the discarded upload is still listed as not finished")
	}

	sent := uploadIDFrom(t, postUpload(t, p, c, "components", "a.xlsx", data))
	if j := waitUpload(t, p, sent); j.State == uploads.StateHeld {
		c.Post("/uploads/"+sent+"/analyse", nil) // the same file again: confirm it
		waitUpload(t, p, sent)
	}
	if res := c.Post("/uploads/"+sent+"/commit", confirmYes()); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("commit: %d", res.StatusCode)
	}
	if j := waitUpload(t, p, sent); j.State != uploads.StateDone {
		t.Fatalf("sent: %s", j.State)
	}
	ended("the sending", sent, uploads.StateDone)
}
