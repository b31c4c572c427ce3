package web_test

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/sekolah/portal/internal/billlist"

	"github.com/sekolah/portal/internal/config"
	"github.com/sekolah/portal/internal/portaltest"
)

// TestErrorPageBannerWithTheDatabaseDown: while the database is down every page is the
// 500 page, and its banner says the environment the configuration names (here the test
// service), never the sandbox's: the banner must not depend on the database.
func TestErrorPageBannerWithTheDatabaseDown(t *testing.T) {
	t.Parallel()
	for _, env := range []string{config.EnvTest, config.EnvProduction} {
		t.Run(env, func(t *testing.T) {
			t.Parallel()
			p := portaltest.Start(t, portaltest.Options{Env: env})
			c := p.SignedIn(t, "finance")
			if err := p.DB.Close(); err != nil {
				t.Fatal(err)
			}
			for _, path := range []string{"/", "/students", "/login"} {
				res := c.Get(path)
				if path != "/login" && res.StatusCode != http.StatusInternalServerError {
					t.Fatalf("%s with the database down: status %d", path, res.StatusCode)
				}
				banner := res.Doc.Find(`[data-testid="env-banner"]`)
				if cls, _ := banner.Attr("class"); !strings.Contains(cls, "env-banner--"+env) {
					t.Errorf("%s: banner %q (class %q), want the %s banner", path, banner.Text(), cls, env)
				}
				if strings.Contains(strings.ToUpper(res.Body), "SANDBOX") {
					t.Errorf("%s: the page mentions the sandbox", path)
				}
			}
		})
	}
}

// countingBody is a request body that notes how much of it the server read.
type countingBody struct {
	r    io.Reader
	read atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.read.Add(int64(n))
	return n, err
}

// TestUploadCrossOriginRefusedBeforeTheBody: a cross-site upload (a form on another site
// posting to the portal with the person's cookie) is refused with the portal's own 403
// page before a byte of its body is read, however large it is.
func TestUploadCrossOriginRefusedBeforeTheBody(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{})
	c := p.SignedIn(t, "finance")
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	_ = mw.WriteField("csrf_token", c.CSRF)
	_ = mw.WriteField("kind", "components")
	fw, _ := mw.CreateFormFile("file", "a.xlsx")
	_, _ = fw.Write(bytes.Repeat([]byte("x"), 4<<20))
	_ = mw.Close()
	body := &countingBody{r: &form}
	req := httptest.NewRequest(http.MethodPost, p.URL+"/uploads", body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	req.Header.Set("Origin", "https://evil.example")
	u, _ := url.Parse(p.URL)
	for _, ck := range c.HTTP.Jar.Cookies(u) {
		req.AddCookie(ck)
	}
	rec := httptest.NewRecorder()
	p.Server.Config.Handler.ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden {
		t.Fatalf("cross-site upload: %d, want 403", rec.Code)
	}
	if n := body.read.Load(); n != 0 {
		t.Errorf("the server read %d bytes of a cross-site upload", n)
	}
	doc, err := goquery.NewDocumentFromReader(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Find(`[data-testid="env-banner"]`).Length() == 0 || !strings.Contains(doc.Find("h1").Text(), "Anda tidak memiliki akses") {
		t.Errorf("not the portal's 403 page: %q", doc.Find("body").Text())
	}
	if jobs, _, _ := p.DB.ListUploadJobs(t.Context(), 0, 10); len(jobs) != 0 {
		t.Errorf("%d uploads recorded", len(jobs))
	}
}

// offsetRecorder notes the offset of every call that reaches the service.
type offsetRecorder struct {
	mu      sync.Mutex
	offsets []string
}

func (o *offsetRecorder) watch(req *http.Request) {
	if v := req.URL.Query().Get("offset"); v != "" {
		o.mu.Lock()
		o.offsets = append(o.offsets, v)
		o.mu.Unlock()
	}
}

// TestHugeOffsetsAreClamped: an offset of 2⁶³−1 typed into a list's URL is clamped before
// it reaches the service or the database: the page answers, its links stay in range, and
// no call to the service carries it.
func TestHugeOffsetsAreClamped(t *testing.T) {
	t.Parallel()
	rec := &offsetRecorder{}
	p := portaltest.Start(t, portaltest.Options{Now: reportsNow, Demo: true, Watch: rec.watch})
	c := p.SignedIn(t, "admin")
	const huge = "9223372036854775807"
	for _, path := range []string{"/bills", "/bills?state=all&limit=9223372036854775807", "/students", "/audit",
		"/uploads/history", "/reports/payments", "/reports/outstanding"} {
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		res := c.Get(path + sep + "offset=" + huge)
		if res.StatusCode != http.StatusOK {
			t.Errorf("%s: status %d", path, res.StatusCode)
			continue
		}
		res.Doc.Find("a[href*='offset='], [hx-get*='offset=']").Each(func(_ int, s *goquery.Selection) {
			link, ok := s.Attr("href")
			if !ok {
				link, _ = s.Attr("hx-get")
			}
			u, err := url.Parse(link)
			if err != nil {
				t.Errorf("%s: link %q: %v", path, link, err)
				return
			}
			if n, err := strconv.Atoi(u.Query().Get("offset")); err != nil || n < 0 || n > billlist.MaxOffset {
				t.Errorf("%s: link %q goes out of range", path, link)
			}
		})
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, v := range rec.offsets {
		if n, err := strconv.Atoi(v); err != nil || n > billlist.MaxOffset {
			t.Errorf("offset=%s reached the service", v)
		}
	}
}

// TestPublicFormLinkFromConfiguration: the settings page gives the public registration
// form's address from PORTAL_PUBLIC_URL, whatever Host header the request came with;
// without it, the page says how to set it instead of guessing.
func TestPublicFormLinkFromConfiguration(t *testing.T) {
	t.Parallel()
	get := func(p *portaltest.Portal, c *portaltest.Client) *goquery.Document {
		// Served in-process: a request for another Host with the person's cookies.
		req := httptest.NewRequest(http.MethodGet, "http://evil.example/settings/registration", nil)
		u, _ := url.Parse(p.URL)
		for _, ck := range c.HTTP.Jar.Cookies(u) {
			req.AddCookie(ck)
		}
		rec := httptest.NewRecorder()
		p.Server.Config.Handler.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("settings: %d %q", rec.Code, rec.Header().Get("Location"))
		}
		if strings.Contains(rec.Body.String(), "evil.example") {
			t.Error("the page shows the request's Host header")
		}
		doc, err := goquery.NewDocumentFromReader(rec.Body)
		if err != nil {
			t.Fatal(err)
		}
		return doc
	}

	p := portaltest.Start(t, portaltest.Options{Config: func(c *config.Config) { c.PublicURL = "https://portal.sekolah.sch.id/keuangan" }})
	doc := get(p, p.SignedIn(t, "admin"))
	if got := strings.TrimSpace(doc.Find(`[data-testid="public-link"]`).Text()); got != "https://portal.sekolah.sch.id/keuangan/register" {
		t.Errorf("public link %q", got)
	}
	if href, _ := doc.Find(`[data-testid="public-link"]`).Attr("href"); href != "https://portal.sekolah.sch.id/keuangan/register" {
		t.Errorf("public link href %q", href)
	}

	p = portaltest.Start(t, portaltest.Options{})
	doc = get(p, p.SignedIn(t, "admin"))
	if doc.Find(`[data-testid="public-link"]`).Length() != 0 {
		t.Errorf("a public link without PORTAL_PUBLIC_URL: %q", doc.Find(`[data-testid="public-link"]`).Text())
	}
	if hint := doc.Find(`[data-testid="public-url-missing"]`).Text(); !strings.Contains(hint, "PORTAL_PUBLIC_URL") {
		t.Errorf("no word on how to set the address: %q", hint)
	}
}
