package web

import (
	"compress/gzip"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// Pages and partials travel gzipped to a browser that accepts it: the bills list of 200
// rows is mostly repeated markup (279 KB as HTML, about a tenth of that gzipped). Brotli
// would save a little more but the standard library has no encoder, and a dependency for
// it is not worth that. The embedded assets are compressed once, ahead of time, by
// static.Handler, and the payment service's callbacks answer a few bytes: both are left
// alone.

// minCompress is the smallest body worth compressing, when its length is known: below
// it gzip's header and the work cost more than they save.
const minCompress = 1024

var gzipPool = sync.Pool{New: func() any {
	w, _ := gzip.NewWriterLevel(io.Discard, gzip.DefaultCompression)
	return w
}}

// compress gzips the answer when the request accepts gzip and the answer is text worth
// compressing; every answer says it varies with Accept-Encoding.
func compress(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/static/") || strings.HasPrefix(r.URL.Path, "/hooks/") {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Add("Vary", "Accept-Encoding")
		if r.Method == http.MethodHead || !acceptsGzip(r.Header.Get("Accept-Encoding")) {
			next.ServeHTTP(w, r)
			return
		}
		cw := &gzipWriter{ResponseWriter: w}
		defer cw.close()
		next.ServeHTTP(cw, r)
	})
}

// acceptsGzip reads an Accept-Encoding header: gzip (or *) listed without q=0.
func acceptsGzip(header string) bool {
	for part := range strings.SplitSeq(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		name = strings.ToLower(strings.TrimSpace(name))
		if name != "gzip" && name != "*" {
			continue
		}
		q := strings.ReplaceAll(strings.ToLower(params), " ", "")
		if q == "q=0" || q == "q=0.0" || q == "q=0.00" || q == "q=0.000" {
			return false
		}
		return true
	}
	return false
}

// compressible reports whether a content type is text that gzip shrinks: HTML, CSS, JS,
// JSON, CSV, plain text, SVG. Spreadsheets and images are compressed already.
func compressible(ctype string) bool {
	mt, _, err := mime.ParseMediaType(ctype)
	if err != nil {
		return false
	}
	switch {
	case strings.HasPrefix(mt, "text/"):
		return true
	case mt == "application/json", mt == "application/javascript", mt == "image/svg+xml", mt == "application/xml":
		return true
	}
	return false
}

// gzipWriter holds the header and the first bytes until it knows whether to compress:
// not a body that is not text, that is encoded already, that has none (204, 304), or
// that ends under minCompress bytes.
type gzipWriter struct {
	http.ResponseWriter
	gz      *gzip.Writer
	buf     []byte
	status  int
	decided bool
}

// WriteHeader keeps the status; the header goes out once it is decided.
func (g *gzipWriter) WriteHeader(status int) {
	if g.status != 0 || g.decided {
		return
	}
	g.status = status
	h := g.ResponseWriter.Header()
	n, err := strconv.Atoi(h.Get("Content-Length"))
	if status == http.StatusNoContent || status == http.StatusNotModified || status < 200 || h.Get("Content-Encoding") != "" ||
		h.Get("Content-Type") != "" && !compressible(h.Get("Content-Type")) || err == nil && n < minCompress {
		g.plain()
	}
}

// Write compresses once minCompress bytes of text have come; the content type is
// sniffed the way net/http would when the handler set none.
func (g *gzipWriter) Write(p []byte) (int, error) {
	if !g.decided {
		h := g.ResponseWriter.Header()
		if h.Get("Content-Type") == "" {
			h.Set("Content-Type", http.DetectContentType(p))
		}
		if !compressible(h.Get("Content-Type")) {
			g.plain()
		} else {
			g.buf = append(g.buf, p...)
			if len(g.buf) < minCompress {
				return len(p), nil
			}
			if err := g.gzipped(); err != nil {
				return 0, err
			}
			return len(p), nil
		}
	}
	if g.gz == nil {
		return g.ResponseWriter.Write(p)
	}
	return g.gz.Write(p)
}

// plain sends the header and what was held as they are.
func (g *gzipWriter) plain() {
	g.decided = true
	g.ResponseWriter.WriteHeader(cmpStatus(g.status))
	if len(g.buf) > 0 {
		_, _ = g.ResponseWriter.Write(g.buf)
		g.buf = nil
	}
}

// gzipped sends the header saying gzip, and what was held through the compressor.
func (g *gzipWriter) gzipped() error {
	g.decided = true
	h := g.ResponseWriter.Header()
	h.Del("Content-Length")
	h.Set("Content-Encoding", "gzip")
	g.ResponseWriter.WriteHeader(cmpStatus(g.status))
	g.gz = gzipPool.Get().(*gzip.Writer)
	g.gz.Reset(g.ResponseWriter)
	_, err := g.gz.Write(g.buf)
	g.buf = nil
	return err
}

func cmpStatus(s int) int {
	if s == 0 {
		return http.StatusOK
	}
	return s
}

// FlushError sends what is held or compressed so far (a long export streams).
func (g *gzipWriter) FlushError() error {
	if !g.decided {
		if len(g.buf) > 0 && compressible(g.ResponseWriter.Header().Get("Content-Type")) {
			if err := g.gzipped(); err != nil {
				return err
			}
		} else {
			g.plain()
		}
	}
	if g.gz != nil {
		if err := g.gz.Flush(); err != nil {
			return err
		}
	}
	return http.NewResponseController(g.ResponseWriter).Flush()
}

// Flush is FlushError for those that only know http.Flusher.
func (g *gzipWriter) Flush() { _ = g.FlushError() }

// Unwrap gives the connection's writer to http.ResponseController.
func (g *gzipWriter) Unwrap() http.ResponseWriter { return g.ResponseWriter }

// close ends the answer: what is still held goes out plain (it was small).
func (g *gzipWriter) close() {
	if !g.decided {
		if g.status == 0 && len(g.buf) == 0 {
			return // nothing was written: net/http answers 200 with no body
		}
		g.plain()
	}
	if g.gz == nil {
		return
	}
	_ = g.gz.Close()
	g.gz.Reset(io.Discard)
	gzipPool.Put(g.gz)
	g.gz = nil
}
