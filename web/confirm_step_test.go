package web_test

import (
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/uploads"
	"github.com/sekolah/portal/internal/uploads/sheettest"
)

// confirmYes is the form of a guarded action's confirmation step: what its button sends.
// A fresh one each time (the test client adds the CSRF token to it).
func confirmYes() url.Values { return url.Values{"confirm": {"yes"}} }

// enrolledSheet writes a components sheet named name, puts its students on the roster (and
// at the service) and returns the file as a person uploads it.
func enrolledSheet(t *testing.T, p *portaltest.Portal, name string, o sheettest.Options) []byte {
	t.Helper()
	sh, err := sheettest.Components(filepath.Join(t.TempDir(), name), o)
	if err != nil {
		t.Fatal(err)
	}
	enrol(t, p, sh, true)
	data, err := os.ReadFile(sh.Path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// startSmallUpload is a portal whose roster has 3 students, the components sheet of 6 rows
// for them (as uploaded, data) and finance signed in.
func startSmallUpload(t *testing.T) (*portaltest.Portal, *portaltest.Client, []byte) {
	t.Helper()
	p := portaltest.Start(t, portaltest.Options{Now: uploadNow})
	return p, p.SignedIn(t, "finance"), enrolledSheet(t, p, "a.xlsx", sheettest.Options{Rows: 6, Students: 3})
}

// TestGuardedActionsAskWithAPage: discarding an upload and sending it ask first with a page
// of their own, not the browser's confirm() (which a browser without JavaScript skips): a
// POST without confirm=yes answers that page and does nothing; its button posts the same
// fields (the ticked acknowledgements) again with confirm=yes, and only that acts.
func TestGuardedActionsAskWithAPage(t *testing.T) {
	t.Parallel()
	p, c, data := startSmallUpload(t)
	ready := func() string {
		t.Helper()
		id := uploadIDFrom(t, postUpload(t, p, c, "components", "a.xlsx", data))
		if j := waitUpload(t, p, id); j.State == uploads.StateHeld {
			c.Post("/uploads/"+id+"/analyse", nil)
			waitUpload(t, p, id)
		}
		return id
	}
	// asked checks the step's page: the question, a form to the same action carrying the
	// given fields and confirm=yes, and the way back to the upload.
	asked := func(res *portaltest.Response, action, question string, fields url.Values) url.Values {
		t.Helper()
		if res.StatusCode != http.StatusOK || res.Doc.Find(`[data-testid="confirm-step"]`).Length() != 1 {
			t.Fatalf("%s without confirm: %d, no confirmation step\n%s", action, res.StatusCode, res.Body)
		}
		if got := billsText(res.Doc.Find(`[data-testid="confirm-question"]`)); got != question {
			t.Errorf("%s asks %q, want %q", action, got, question)
		}
		form := res.Doc.Find(`form[data-testid="confirm-form"]`)
		if got := form.AttrOr("action", ""); got != action || form.AttrOr("method", "") != "post" {
			t.Errorf("the step posts to %q, want %s", got, action)
		}
		sent := url.Values{}
		form.Find(`input[type="hidden"]`).Each(func(_ int, in *goquery.Selection) {
			sent.Add(in.AttrOr("name", ""), in.AttrOr("value", ""))
		})
		for k, vs := range fields {
			if strings.Join(sent[k], "|") != strings.Join(vs, "|") {
				t.Errorf("the step sends %s=%q, want %q", k, sent[k], vs)
			}
		}
		if sent.Get("confirm") != "yes" || sent.Get("csrf_token") == "" {
			t.Errorf("the step sends %v, want confirm=yes and a CSRF token", sent)
		}
		if back := res.Doc.Find(`[data-testid="confirm-back"]`).AttrOr("href", ""); !strings.HasPrefix(action, back) || back == "" {
			t.Errorf("the way back is %q, want the upload's page", back)
		}
		return sent
	}

	// Discard: asked, nothing done; confirmed, discarded.
	id := ready()
	res := c.Post("/uploads/"+id+"/discard", nil)
	asked(res, "/uploads/"+id+"/discard", "Batalkan unggahan ini? Berkasnya dihapus; riwayatnya tetap ada.", nil)
	if j := waitUpload(t, p, id); j.State == uploads.StateDiscarded {
		t.Fatal("a discard without its confirmation discarded the upload")
	}
	if res := c.Post("/uploads/"+id+"/discard", confirmYes()); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("confirmed discard: %d", res.StatusCode)
	}
	if j := waitUpload(t, p, id); j.State != uploads.StateDiscarded {
		t.Fatalf("a confirmed discard left the upload %s", j.State)
	}

	// Commit: asked with the preview's figures, the ticked boxes carried; confirmed, sent.
	id = ready()
	ack := url.Values{"ack": {"x_first", "y_second"}}
	res = c.Post("/uploads/"+id+"/commit", url.Values{"ack": ack["ack"]})
	sent := asked(res, "/uploads/"+id+"/commit", "Kirim 6 baris baru ke layanan pembayaran?", ack)
	if got := billsText(res.Doc.Find(`[data-testid="confirm-yes"]`)); got != "Kirim 6 baris baru" {
		t.Errorf("the step's button reads %q", got)
	}
	if j := waitUpload(t, p, id); j.State != uploads.StateReady {
		t.Fatalf("a commit without its confirmation started sending (%s)", j.State)
	}
	if n := countComponents(t, p); n != 0 {
		t.Fatalf("the service has %d components before the confirmation", n)
	}
	delete(sent, "ack")
	if res := c.Post("/uploads/"+id+"/commit", sent); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("confirmed commit: %d\n%s", res.StatusCode, res.Body)
	}
	if j := waitUpload(t, p, id); j.State != uploads.StateDone || j.Created != 6 {
		t.Fatalf("the confirmed commit: %s, created %d", j.State, j.Created)
	}

	// English too.
	id = ready()
	c.Post("/lang", url.Values{"lang": {"en"}})
	res = c.Post("/uploads/"+id+"/discard", nil)
	asked(res, "/uploads/"+id+"/discard", "Discard this upload? Its file is deleted; the history line stays.", nil)
}

// TestNoBrowserConfirm: no view asks through the browser's confirm() any more, neither
// data-confirm (app.js's old pop-up) nor htmx's hx-confirm.
func TestNoBrowserConfirm(t *testing.T) {
	t.Parallel()
	err := filepath.WalkDir("../views", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".templ") {
			return err
		}
		b, err := os.ReadFile(path)
		for _, bad := range []string{"data-confirm", "hx-confirm", "confirm("} {
			if strings.Contains(string(b), bad) {
				t.Errorf("%s asks with %s", path, bad)
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
