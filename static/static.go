// Package static embeds the portal's CSS, JavaScript, images and vendored
// htmx, and serves them under content-hashed URLs so browsers may cache them
// for a year and still see every change at once.
//
// Vendored: htmx 2.0.11 from the npm package htmx.org@2.0.11 (dist/htmx.min.js,
// licence in vendor/htmx.LICENSE, Zero-Clause BSD). To upgrade, npm pack the
// new version, replace the file, and change HTMX below.
//
// The layout must carry, besides the CSRF token meta that js/app.js reads,
//
//	<meta name="htmx-config" content='{"includeIndicatorStyles":false,"allowEval":false,"allowScriptTags":false}'>
//
// because the CSP (script-src 'self'; style-src 'self') forbids the inline
// style htmx would otherwise inject and the eval it could use.
package static

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"
)

// Prefix is the URL path the handler answers under; mount Handler at Prefix+"*".
const Prefix = "/static/"

// Asset names the layout refers to, so a rename is a compile error in one place.
const (
	AppCSS  = "css/app.css"
	AppJS   = "js/app.js"
	HTMX    = "vendor/htmx-2.0.11.min.js"
	Logo    = "img/logo.svg"
	Favicon = "img/favicon.svg"
)

//go:embed css js img vendor
var files embed.FS

// hashLen is how many hex digits of the SHA-256 go into a URL: 40 bits is
// plenty to tell versions of one file apart.
const hashLen = 10

type asset struct {
	name   string
	hash   string
	url    string
	ctype  string
	data   []byte
	gz     []byte // nil when gzip would not make it smaller
	etag   string
	gzEtag string
}

// assets maps a file name ("css/app.css") to its asset; built once at init
// and read-only afterwards, so no locking.
var assets = func() map[string]*asset {
	m := map[string]*asset{}
	err := fs.WalkDir(files, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := files.ReadFile(name)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		a := &asset{
			name:  name,
			hash:  hex.EncodeToString(sum[:])[:hashLen],
			ctype: contentType(name),
			data:  data,
		}
		a.url = Prefix + hashedName(name, a.hash)
		a.etag = `"` + a.hash + `"`
		if compressible(a.ctype) {
			if gz := gzipBytes(data); len(gz) < len(data) {
				a.gz = gz
				a.gzEtag = `"` + a.hash + `-gz"`
			}
		}
		m[name] = a
		return nil
	})
	if err != nil {
		panic("static: reading embedded files: " + err.Error())
	}
	return m
}()

// Path returns the content-hashed URL of an embedded file:
// Path("css/app.css") is "/static/css/app.3f9a1c2b7d.css". An unknown name
// gives its plain URL, which answers 404, so a typo shows as a broken asset in
// the browser rather than a failed page; TestPathKnownNames guards the constants.
func Path(name string) string {
	name = strings.TrimPrefix(name, "/")
	if a, ok := assets[name]; ok {
		return a.url
	}
	return Prefix + name
}

// Names returns the embedded file names, for tests and diagnostics.
func Names() []string {
	out := make([]string, 0, len(assets))
	for n := range assets {
		out = append(out, n)
	}
	return out
}

// Handler serves the embedded files under Prefix. A URL carrying the current
// hash is cached for a year as immutable; a plain or stale-hash URL still gets
// the current file, marked no-cache, so pages rendered before a deploy keep
// their styles.
func Handler() http.Handler {
	return http.HandlerFunc(serve)
}

func serve(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		http.Error(w, http.StatusText(http.StatusMethodNotAllowed), http.StatusMethodNotAllowed)
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, Prefix)
	if !ok {
		http.NotFound(w, r)
		return
	}
	a, hashed := lookup(rest)
	if a == nil {
		http.NotFound(w, r)
		return
	}
	if hashed {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "no-cache")
	}
	h.Set("Content-Type", a.ctype)
	body, etag := a.data, a.etag
	if a.gz != nil {
		h.Add("Vary", "Accept-Encoding")
		if acceptsGzip(r.Header.Get("Accept-Encoding")) {
			body, etag = a.gz, a.gzEtag
			h.Set("Content-Encoding", "gzip")
		}
	}
	h.Set("ETag", etag)
	// ServeContent answers If-None-Match with 304 and handles Range and HEAD.
	http.ServeContent(w, r, a.name, time.Time{}, bytes.NewReader(body))
}

// lookup finds the asset for a request path below Prefix. hashed reports
// whether the path carried the asset's current hash.
func lookup(rest string) (a *asset, hashed bool) {
	if strings.Contains(rest, "..") || strings.HasPrefix(rest, "/") {
		return nil, false
	}
	if a, ok := assets[rest]; ok {
		return a, false
	}
	name, hash, ok := splitHash(rest)
	if !ok {
		return nil, false
	}
	a, found := assets[name]
	if !found {
		return nil, false
	}
	return a, hash == a.hash
}

// hashedName puts hash before the last extension: "css/app.css" →
// "css/app.<hash>.css", "vendor/htmx-2.0.11.min.js" → "vendor/htmx-2.0.11.min.<hash>.js".
func hashedName(name, hash string) string {
	dir, file := path.Split(name)
	ext := path.Ext(file)
	return dir + strings.TrimSuffix(file, ext) + "." + hash + ext
}

// splitHash undoes hashedName; ok is false when the part before the extension
// is not hashLen hex digits.
func splitHash(p string) (name, hash string, ok bool) {
	dir, file := path.Split(p)
	ext := path.Ext(file)
	stem := strings.TrimSuffix(file, ext)
	i := strings.LastIndexByte(stem, '.')
	if i < 0 {
		return "", "", false
	}
	hash = stem[i+1:]
	if len(hash) != hashLen || !isHex(hash) {
		return "", "", false
	}
	return dir + stem[:i] + ext, hash, true
}

func isHex(s string) bool {
	for _, c := range []byte(s) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// contentType is fixed here rather than left to the system's mime tables,
// which differ between machines (some map .js to application/x-javascript).
func contentType(name string) string {
	switch strings.ToLower(path.Ext(name)) {
	case ".css":
		return "text/css; charset=utf-8"
	case ".js", ".mjs":
		return "text/javascript; charset=utf-8"
	case ".svg":
		return "image/svg+xml"
	case ".png":
		return "image/png"
	case ".ico":
		return "image/x-icon"
	case ".woff2":
		return "font/woff2"
	case ".json", ".map":
		return "application/json"
	case ".txt", ".license":
		return "text/plain; charset=utf-8"
	}
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		return t
	}
	return "application/octet-stream"
}

func compressible(ctype string) bool {
	return strings.HasPrefix(ctype, "text/") || strings.HasPrefix(ctype, "image/svg") || strings.HasPrefix(ctype, "application/json")
}

func gzipBytes(data []byte) []byte {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil
	}
	if _, err := zw.Write(data); err != nil {
		return nil
	}
	if err := zw.Close(); err != nil {
		return nil
	}
	return buf.Bytes()
}

// acceptsGzip reports whether an Accept-Encoding header allows gzip, honouring
// "gzip;q=0" and "*".
func acceptsGzip(header string) bool {
	star := false
	for part := range strings.SplitSeq(header, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		coding = strings.ToLower(strings.TrimSpace(coding))
		if coding != "gzip" && coding != "*" {
			continue
		}
		q := 1.0
		if v, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				q = f
			}
		}
		if coding == "gzip" {
			return q > 0
		}
		star = q > 0
	}
	return star
}
