package web_test

import (
	"bytes"
	"image"
	"image/png"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/sekolah/portal/internal/portaltest"
)

// postSchool sends the school profile form as a browser does: multipart, with the logo
// file when one is given.
func postSchool(t *testing.T, p *portaltest.Portal, c *portaltest.Client, fields map[string]string, logoName string, logo []byte) *portaltest.Response {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("csrf_token", c.CSRF)
	for k, v := range fields {
		_ = mw.WriteField(k, v)
	}
	fw, err := mw.CreateFormFile("logo", logoName)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = fw.Write(logo)
	_ = mw.Close()
	req, err := http.NewRequest(http.MethodPost, p.URL+"/settings/school", &body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return c.Do(req)
}

func pngBytes(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 8, 8))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestSchoolProfileForm(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: billsNow})
	ctx := t.Context()
	admin := p.SignedIn(t, "admin")
	if res := admin.Get("/settings/school"); res.StatusCode != http.StatusOK || res.Doc.Find(`[data-testid="logo-none"]`).Length() != 1 {
		t.Fatalf("form: %d", res.StatusCode)
	}
	typed := map[string]string{"name": "SMP Nusantara", "address": "Jl. Merdeka 1\r\nBandung", "npsn": "20212345",
		"phone": "(022) 765-4321", "receipt_pattern": "KW/{YYYY}/{MM}/{seq}", "receipt_footer": "Terima kasih.", "letter_note": "Bayar di BCA."}

	// A file that is not an image: refused beside the field, everything typed kept, nothing saved.
	res := postSchool(t, p, admin, typed, "logo.gif", []byte("GIF89a\x01\x00\x01\x00"))
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(billsText(res.Doc.Find(`[data-testid="error-logo"]`)), "PNG atau JPEG") {
		t.Fatalf("bad logo: %d %q", res.StatusCode, billsText(res.Doc.Find(`[data-testid="error-logo"]`)))
	}
	for name, want := range typed {
		got := res.Doc.Find(`[name="` + name + `"]`)
		v := got.AttrOr("value", "")
		if got.Is("textarea") {
			v = got.Text()
		}
		if want = strings.ReplaceAll(want, "\r\n", "\n"); v != want {
			t.Errorf("%s lost: %q, want %q", name, v, want)
		}
	}
	if prof, _ := p.DB.SchoolProfile(ctx); prof.Name != "" {
		t.Fatalf("saved despite the bad logo: %+v", prof)
	}

	// A good logo with a bad NPSN: neither is stored, and the page says to choose the file again.
	bad := map[string]string{"name": "SMP Nusantara", "npsn": "1234"}
	res = postSchool(t, p, admin, bad, "logo.png", pngBytes(t))
	if res.StatusCode != http.StatusUnprocessableEntity || res.Doc.Find(`[data-testid="error-npsn"]`).Length() != 1 ||
		res.Doc.Find(`[data-testid="logo-kept"]`).Length() != 1 {
		t.Fatalf("bad NPSN: %d", res.StatusCode)
	}
	if v, _ := p.DB.SchoolLogoVersion(ctx); v != "" {
		t.Fatal("the logo was stored with a form that had mistakes")
	}

	// All good: saved, audited, and the logo is served from the database.
	res = postSchool(t, p, admin, typed, "logo.png", pngBytes(t))
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("save: %d %s", res.StatusCode, billsText(res.Doc.Find(`[data-testid="form-error"]`)))
	}
	prof, _ := p.DB.SchoolProfile(ctx)
	if prof.Name != "SMP Nusantara" || prof.Address != "Jl. Merdeka 1\nBandung" || prof.ReceiptPattern != "KW/{YYYY}/{MM}/{seq}" {
		t.Fatalf("profile = %+v", prof)
	}
	page := admin.Get("/settings/school")
	logoURL := page.Doc.Find(`[data-testid="logo-current"]`).AttrOr("src", "")
	if !strings.HasPrefix(logoURL, "/school/logo?v=") || !strings.Contains(billsText(page.Doc.Find(`[data-testid="next-receipt"]`)), "KW/2026/11/0001") {
		t.Fatalf("logo %q, next %q", logoURL, billsText(page.Doc.Find(`[data-testid="next-receipt"]`)))
	}
	finance := p.SignedIn(t, "finance")
	img := finance.Get(logoURL)
	if img.StatusCode != http.StatusOK || img.Header.Get("Content-Type") != "image/png" || !strings.Contains(img.Header.Get("Cache-Control"), "immutable") ||
		!bytes.Equal([]byte(img.Body), pngBytes(t)) {
		t.Fatalf("logo: %d %q %q", img.StatusCode, img.Header.Get("Content-Type"), img.Header.Get("Cache-Control"))
	}

	// Finance may print with the logo but not change the profile.
	if res := finance.Get("/settings/school"); res.StatusCode != http.StatusForbidden {
		t.Errorf("finance reads the form: %d", res.StatusCode)
	}
	if res := postSchool(t, p, finance, map[string]string{"name": "X"}, "x.png", pngBytes(t)); res.StatusCode != http.StatusForbidden {
		t.Errorf("finance saves: %d", res.StatusCode)
	}

	// Removing the logo.
	if res := admin.Post("/settings/school/logo/delete", confirmYes()); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("remove: %d", res.StatusCode)
	}
	if res := finance.Get("/school/logo"); res.StatusCode != http.StatusNotFound {
		t.Errorf("removed logo still served: %d", res.StatusCode)
	}
}
