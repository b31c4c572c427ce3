package web_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/sekolah/portal/internal/portaltest"
)

// TestBodiesOverTheLimitAreTooLarge: a form posted with a body over its route's limit
// (1 MB for forms, 12 MB for the school's profile with its logo) gets the "too large" page
// in the person's language, 413, not the CSRF refusal it used to get (its token was in the
// part never read).
func TestBodiesOverTheLimitAreTooLarge(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: regNow})
	visitor := p.NewClient(t)
	visitor.Get("/login")
	res := visitor.Post("/login", url.Values{"username": {"admin"}, "password": {strings.Repeat("x", 2<<20)}})
	if res.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(res.Body, "Isian terlalu besar") ||
		!strings.Contains(res.Body, "lebih besar dari 1 MB") {
		t.Fatalf("sign-in form of 2 MB: %d\n%.2000s", res.StatusCode, res.Body)
	}
	admin := p.SignedIn(t, "admin")
	admin.Post("/lang", url.Values{"lang": {"en"}, "next": {"/"}})
	res = admin.Post("/students/new", url.Values{"nis": {"1"}, "name": {strings.Repeat("x", 2<<20)}})
	if res.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(res.Body, "The form is too large") {
		t.Fatalf("a student of 2 MB: %d\n%.2000s", res.StatusCode, res.Body)
	}
	// The school's profile: a 13 MB logo.
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("csrf_token", admin.CSRF)
	mw.WriteField("name", "SMP Negeri 1")
	fw, _ := mw.CreateFormFile("logo", "logo.png")
	fw.Write(bytes.Repeat([]byte{0x89}, 13<<20))
	mw.Close()
	req, _ := http.NewRequest(http.MethodPost, p.URL+"/settings/school", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	res = admin.Do(req)
	if res.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(res.Body, "larger than the 12 MB") {
		t.Fatalf("a 13 MB logo: %d\n%.2000s", res.StatusCode, res.Body)
	}
	// HTMX gets the message where its alerts go.
	res = admin.Post("/students/new", url.Values{"name": {strings.Repeat("x", 2<<20)}}, "HX-Request", "true")
	if res.StatusCode != http.StatusRequestEntityTooLarge || res.Header.Get("HX-Retarget") != "#alerts" {
		t.Fatalf("HTMX: %d %q", res.StatusCode, res.Header.Get("HX-Retarget"))
	}
}
