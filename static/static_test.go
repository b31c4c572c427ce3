package static

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestPathKnownNames(t *testing.T) {
	hashed := regexp.MustCompile(`^/static/[a-z0-9/._-]+\.[0-9a-f]{10}\.[a-z]+$`)
	for _, name := range []string{AppCSS, AppJS, HTMX, Logo, Favicon} {
		p := Path(name)
		if !hashed.MatchString(p) {
			t.Errorf("Path(%q) = %q, want a hashed /static/ URL", name, p)
		}
		if Path(name) != p {
			t.Errorf("Path(%q) is not stable", name)
		}
	}
	if got := Path("/css/app.css"); got != Path(AppCSS) {
		t.Errorf("leading slash: Path = %q, want %q", got, Path(AppCSS))
	}
	if got, want := Path("css/missing.css"), "/static/css/missing.css"; got != want {
		t.Errorf("unknown name: Path = %q, want %q", got, want)
	}
}

func TestHashedNameRoundTrip(t *testing.T) {
	tests := []struct{ name, hashed string }{
		{"css/app.css", "css/app.0123456789.css"},
		{"vendor/htmx-2.0.11.min.js", "vendor/htmx-2.0.11.min.0123456789.js"},
		{"img/logo.svg", "img/logo.0123456789.svg"},
	}
	for _, tt := range tests {
		if got := hashedName(tt.name, "0123456789"); got != tt.hashed {
			t.Errorf("hashedName(%q) = %q, want %q", tt.name, got, tt.hashed)
		}
		name, hash, ok := splitHash(tt.hashed)
		if !ok || name != tt.name || hash != "0123456789" {
			t.Errorf("splitHash(%q) = %q, %q, %v", tt.hashed, name, hash, ok)
		}
	}
	for _, p := range []string{"css/app.css", "css/app.12345.css", "css/app.ABCDEF1234.css", "app"} {
		if _, _, ok := splitHash(p); ok {
			t.Errorf("splitHash(%q) accepted a non-hash", p)
		}
	}
}

func TestHandler(t *testing.T) {
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	css, _ := files.ReadFile(AppCSS)
	stale := strings.Replace(Path(AppCSS), assets[AppCSS].hash, "0000000000", 1)
	tests := []struct {
		name        string
		method      string
		path        string
		status      int
		cache       string
		ctype       string
		body        []byte
		noTransform bool // request asks for identity encoding
	}{
		{"hashed css", "GET", Path(AppCSS), 200, "public, max-age=31536000, immutable", "text/css; charset=utf-8", css, false},
		{"hashed js", "GET", Path(AppJS), 200, "public, max-age=31536000, immutable", "text/javascript; charset=utf-8", nil, false},
		{"hashed htmx", "GET", Path(HTMX), 200, "public, max-age=31536000, immutable", "text/javascript; charset=utf-8", nil, false},
		{"hashed svg", "GET", Path(Logo), 200, "public, max-age=31536000, immutable", "image/svg+xml", nil, false},
		{"plain name", "GET", "/static/css/app.css", 200, "no-cache", "text/css; charset=utf-8", css, false},
		{"stale hash", "GET", stale, 200, "no-cache", "text/css; charset=utf-8", css, false},
		{"licence", "GET", "/static/vendor/htmx.LICENSE", 200, "no-cache", "text/plain; charset=utf-8", nil, false},
		{"head", "HEAD", Path(AppCSS), 200, "public, max-age=31536000, immutable", "text/css; charset=utf-8", nil, false},
		{"unknown file", "GET", "/static/css/nope.css", 404, "", "", nil, false},
		{"unknown hashed file", "GET", "/static/css/nope.0123456789.css", 404, "", "", nil, false},
		{"directory", "GET", "/static/css/", 404, "", "", nil, false},
		{"traversal", "GET", "/static/../static.go", 404, "", "", nil, false},
		{"go source not embedded", "GET", "/static/static.go", 404, "", "", nil, false},
		{"outside prefix", "GET", "/css/app.css", 404, "", "", nil, false},
		{"post", "POST", Path(AppCSS), 405, "", "", nil, false},
	}
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, srv.URL+tt.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.URL.Opaque = tt.path // keep ".." as sent
			res, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			body, _ := io.ReadAll(res.Body)
			if res.StatusCode != tt.status {
				t.Fatalf("status = %d, want %d", res.StatusCode, tt.status)
			}
			if got := res.Header.Get("X-Content-Type-Options"); got != "nosniff" {
				t.Errorf("X-Content-Type-Options = %q", got)
			}
			if tt.status != 200 {
				return
			}
			if got := res.Header.Get("Cache-Control"); got != tt.cache {
				t.Errorf("Cache-Control = %q, want %q", got, tt.cache)
			}
			if got := res.Header.Get("Content-Type"); got != tt.ctype {
				t.Errorf("Content-Type = %q, want %q", got, tt.ctype)
			}
			if got := res.Header.Get("Content-Encoding"); got != "" {
				t.Errorf("Content-Encoding = %q without Accept-Encoding", got)
			}
			if tt.method == "HEAD" && len(body) != 0 {
				t.Errorf("HEAD returned %d bytes", len(body))
			}
			if tt.body != nil && !bytes.Equal(body, tt.body) {
				t.Errorf("body differs from the embedded file (%d vs %d bytes)", len(body), len(tt.body))
			}
		})
	}
}

func TestHandlerGzip(t *testing.T) {
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	want, _ := files.ReadFile(HTMX)
	tests := []struct {
		accept string
		gzip   bool
	}{
		{"gzip, deflate, br", true},
		{"br;q=1.0, gzip;q=0.8", true},
		{"*", true},
		{"gzip;q=0", false},
		{"*;q=0", false},
		{"identity", false},
		{"", false},
	}
	for _, tt := range tests {
		req, _ := http.NewRequest("GET", srv.URL+Path(HTMX), nil)
		if tt.accept != "" {
			req.Header.Set("Accept-Encoding", tt.accept)
		}
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(res.Body)
		res.Body.Close()
		gotGzip := res.Header.Get("Content-Encoding") == "gzip"
		if gotGzip != tt.gzip {
			t.Errorf("Accept-Encoding %q: gzip = %v, want %v", tt.accept, gotGzip, tt.gzip)
		}
		if !strings.Contains(res.Header.Get("Vary"), "Accept-Encoding") {
			t.Errorf("Accept-Encoding %q: Vary = %q", tt.accept, res.Header.Get("Vary"))
		}
		body := raw
		if gotGzip {
			zr, err := gzip.NewReader(bytes.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			body, _ = io.ReadAll(zr)
			if len(raw) >= len(want) {
				t.Errorf("gzip body %d bytes is not smaller than %d", len(raw), len(want))
			}
		}
		if !bytes.Equal(body, want) {
			t.Errorf("Accept-Encoding %q: body differs from the embedded file", tt.accept)
		}
	}
}

func TestHandlerConditional(t *testing.T) {
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	res, err := client.Get(srv.URL + Path(AppJS))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	etag := res.Header.Get("ETag")
	if etag == "" {
		t.Fatal("no ETag")
	}
	req, _ := http.NewRequest("GET", srv.URL+"/static/js/app.js", nil)
	req.Header.Set("If-None-Match", etag)
	res, err = client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match with current ETag: status %d, want 304", res.StatusCode)
	}
}

// The CSP (script-src 'self'; style-src 'self') rules out inline code; the embedded
// assets must not need it either.
func TestAssetsFitCSP(t *testing.T) {
	js, _ := files.ReadFile(AppJS)
	for _, bad := range []string{"window.confirm(", "eval(", "new Function", "innerHTML", ".setAttribute(\"style\"", "document.write"} {
		if bytes.Contains(js, []byte(bad)) {
			t.Errorf("app.js uses %q", bad)
		}
	}
	for _, need := range []string{"htmx:configRequest", "X-CSRF-Token", `meta[name="csrf-token"]`, "data-autosubmit", "data-print", "data-copy", "data-dismiss"} {
		if !bytes.Contains(js, []byte(need)) {
			t.Errorf("app.js lacks %q", need)
		}
	}
	for _, name := range []string{Logo, Favicon} {
		svg, _ := files.ReadFile(name)
		if bytes.Contains(svg, []byte("<script")) || bytes.Contains(svg, []byte("style=")) {
			t.Errorf("%s has a script or inline style", name)
		}
	}
}

// Every class the views are told to use must be styled.
func TestCSSCoversVocabulary(t *testing.T) {
	css, _ := files.ReadFile(AppCSS)
	classes := []string{
		"env-banner", "env-banner--sandbox", "env-banner--test", "env-banner--production",
		"topbar", "brand", "user-menu", "role-badge", "lang-switch", "shell", "sidenav", "content",
		"page-head", "actions", "breadcrumbs", "site-footer",
		"card", "card-head", "card-body", "cards", "stat", "stat-label", "stat-value", "stat-sub",
		"grid-2", "stack", "muted", "small", "num", "nowrap", "mono",
		"table", "table-wrap", "is-overdue", "sort",
		"badge", "badge--provisioned", "badge--paid", "badge--expired", "badge--overdue", "badge--info", "badge--warning",
		"btn", "btn--primary", "btn--secondary", "btn--danger", "btn--link", "btn--small",
		"form", "form-grid", "field", "hint", "field-error", "form-actions", "filters", "checkbox",
		"alert", "alert--error", "alert--success", "alert--warning", "alert--info", "empty",
		"htmx-indicator", "htmx-request", "progress-label",
		"tabs", "pagination", "login", "receipt", "statement", "chart", "legend",
		"swatch--1", "swatch--2", "swatch--3", "swatch--4", "swatch--5", "swatch--6",
		"fill--1", "fill--2", "fill--3", "fill--4", "fill--5", "fill--6",
		"visually-hidden", "skip-link", "login-body", "user-name", "inline", "page-info",
	}
	for _, c := range classes {
		re := regexp.MustCompile(`\.` + regexp.QuoteMeta(c) + `([^a-zA-Z0-9_-]|$)`)
		if !re.Match(css) {
			t.Errorf("app.css has no rule for .%s", c)
		}
	}
	for _, sel := range []string{`aria-current="page"`, `aria-invalid="true"`, `aria-sort`, "tfoot", "progress", "fieldset", "legend", "@media print", "button[disabled]"} {
		if !bytes.Contains(css, []byte(sel)) {
			t.Errorf("app.css has no rule for %s", sel)
		}
	}
}

func BenchmarkHandlerHashed(b *testing.B) {
	h := Handler()
	req := httptest.NewRequest("GET", Path(AppCSS), nil)
	req.Header.Set("Accept-Encoding", "gzip")
	for b.Loop() {
		h.ServeHTTP(httptest.NewRecorder(), req)
	}
}

// TestLegibleFontSizes: no text a phone shows is set below 0.75rem (12 px), Lighthouse's
// legible size; the audit log's monospaced cells at 0.9em of a small table's 0.8rem read 11.5 px
// (Lighthouse's best practices 96 on /audit at 390 px). Sizes in em are bounded by
// max(…, 0.75rem) where they apply to text.
func TestLegibleFontSizes(t *testing.T) {
	css, err := files.ReadFile("css/app.css")
	if err != nil {
		t.Fatal(err)
	}
	// Table headings and a fitted table's badges (0.72rem, uppercase) are the exception: a
	// small share of a page's text (Lighthouse asks 60% of it at 12 px or more), and at
	// 0.75rem the bills list no longer fits 1366 px (TestBrowserTablesFit).
	rem := regexp.MustCompile(`(?m)^(.*)font-size:\s*(0?\.\d+)rem`)
	for _, m := range rem.FindAllSubmatch(css, -1) {
		rule := string(m[1])
		if strings.Contains(rule, "thead th") || strings.Contains(rule, ".table--fit .badge") {
			continue
		}
		if v, _ := strconv.ParseFloat(string(m[2]), 64); v < 0.75 {
			t.Errorf("%s: below 0.75rem", m[0])
		}
	}
	mono := regexp.MustCompile(`(?m)^code, kbd, \.mono \{[^}]*font-size: ([^;]*);`)
	if m := mono.FindSubmatch(css); m == nil || !strings.Contains(string(m[1]), "0.75rem") {
		t.Errorf("code, kbd, .mono: font-size %q is not bounded below by 0.75rem", m)
	}
}
