package web

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/url"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/views/viewctx"
)

// contentSecurityPolicy allows nothing inline: scripts, styles and images come from the portal.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"font-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; object-src 'none'; frame-ancestors 'none'"

// hsts asks browsers to use HTTPS only for a year. Not preloaded: a school that moves the
// portal to a host without TLS must not be locked out for longer than that.
const hsts = "max-age=31536000"

// securityHeaders sets the headers every response carries, and HSTS on those to requests
// that came over HTTPS (directly or per a trusted proxy); over plain HTTP the header means
// nothing, and browsers ignore it.
func (h *Handler) securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		if h.isHTTPS(r) {
			hd.Set("Strict-Transport-Security", hsts)
		}
		hd.Set("Content-Security-Policy", contentSecurityPolicy)
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "same-origin")
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("Cross-Origin-Opener-Policy", "same-origin")
		hd.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
		next.ServeHTTP(w, r)
	})
}

// requestLogger logs one line per request; it never logs headers or bodies.
func (h *Handler) requestLogger(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := h.clk.Now()
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		next.ServeHTTP(ww, r)
		h.log.Info("request", "method", r.Method, "path", r.URL.Path, "status", ww.Status(),
			"bytes", ww.BytesWritten(), "duration", h.clk.Since(start).Round(time.Microsecond),
			"request_id", middleware.GetReqID(r.Context()))
	})
}

// measure times each request for the metrics (internal/metrics), by the pattern of the
// route that answered (chi's, read once routing is done: "/students/{nis}", never the
// path with its NIS), the method and the status. Without metrics it is not in the chain.
func (h *Handler) measure(next http.Handler) http.Handler {
	if h.metrics == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := h.clk.Now()
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		next.ServeHTTP(ww, r)
		route := ""
		if rc := chi.RouteContext(r.Context()); rc != nil {
			route = rc.RoutePattern()
		}
		h.metrics.Request(route, r.Method, ww.Status(), h.clk.Since(start))
	})
}

// recoverer turns a panic into the 500 page; the stack goes to the log only.
func (h *Handler) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if rec := recover(); rec != nil {
				if rec == http.ErrAbortHandler {
					panic(rec)
				}
				h.log.Error("panic", "path", r.URL.Path, "panic", fmt.Sprint(rec), "stack", string(debug.Stack()))
				h.serverError(w, r, errors.New("panic"))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// How long a request may take to send its body, from when its headers are read. A form
// is a few KB and a phone on a weak signal sends it in seconds; the school's logo is at
// most 12 MB; only an upload (20 MB over a school's slow uplink) needs the server's whole
// read timeout. A sender slower than that no longer holds a connection for minutes.
const (
	formBodyTimeout   = 30 * time.Second
	schoolBodyTimeout = 2 * time.Minute
	uploadBodyTimeout = 5 * time.Minute
)

// bodyDeadline gives the rest of the request, its body, d from now to arrive (the
// connection's read deadline); a body still arriving then fails to read (readForm
// answers 408). The global stack sets the short one; a route group with a larger body
// sets its own after it.
func (h *Handler) bodyDeadline(d time.Duration) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if err := http.NewResponseController(w).SetReadDeadline(clock.Deadline(d)); err != nil && !errors.Is(err, http.ErrNotSupported) {
				h.log.Warn("set the body's read deadline", "err", err)
			}
			next.ServeHTTP(w, r)
		})
	}
}

// formMemory is how much of a multipart form (the school's logo) is held in memory; the
// rest goes to a temporary file, as net/http does.
const formMemory = 1 << 20

// readForm reads a posted form's body before the CSRF check looks for its token in it,
// and answers a body that could not be read with what went wrong, in the person's
// language: over the route's limit, 413 ("too large"), not a CSRF refusal; not there in
// time (bodyDeadline), 408; broken, 400.
func (h *Handler) readForm(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
			next.ServeHTTP(w, r)
			return
		}
		var err error
		if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "multipart/form-data" {
			err = r.ParseMultipartForm(formMemory)
		} else {
			err = r.ParseForm()
		}
		if err == nil {
			next.ServeHTTP(w, r)
			return
		}
		ctx := r.Context()
		var tooLarge *http.MaxBytesError
		var netErr net.Error
		switch {
		case errors.As(err, &tooLarge):
			h.log.Warn("form body too large", "path", r.URL.Path, "limit", tooLarge.Limit)
			h.renderError(w, r, http.StatusRequestEntityTooLarge, i18n.T(ctx, "error.too_large", strconv.FormatInt(mbCeil(tooLarge.Limit), 10)))
		case errors.As(err, &netErr) && netErr.Timeout():
			// The failed read has cancelled the request's context; the answer is still
			// written, to a sender that may be slow but is there.
			h.log.Warn("form body too slow", "path", r.URL.Path)
			h.renderError(w, r.WithContext(context.WithoutCancel(ctx)), http.StatusRequestTimeout, "")
		default:
			h.log.Warn("form body not read", "path", r.URL.Path, "err", err)
			h.renderError(w, r, http.StatusBadRequest, "")
		}
	})
}

// mbCeil is n bytes in whole megabytes, rounded up.
func mbCeil(n int64) int64 { return (n + 1<<20 - 1) >> 20 }

// limitBody caps request bodies; uploads get their own larger limit on their route.
func limitBody(n int64) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Body != nil && r.ContentLength != 0 {
				r.Body = http.MaxBytesReader(w, r.Body, n)
			}
			next.ServeHTTP(w, r)
		})
	}
}

// loadSession reads the session cookie and, when it names a live session (checked in the
// database on every request, so an ended session is refused on every instance), puts the
// person into the request context, with the CSRF token, the language and the upstream
// environment.
func (h *Handler) loadSession(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s := h.session(r)
		dirty := false
		token, _ := s.Values[keyCSRF].(string)
		if token == "" {
			token = newToken()
			s.Values[keyCSRF] = token
			dirty = true
		}
		lang := i18n.Indonesian
		if l, ok := i18n.ParseLang(fmt.Sprint(s.Values[keyLang])); ok {
			lang = l
		}
		ctx := r.Context()
		if sid, _ := s.Values[keyToken].(string); sid != "" {
			sess, user, err := h.auth.Session(ctx, sid, h.device(r))
			switch {
			case errors.Is(err, auth.ErrNoSession):
				// Ended, expired, or its account disabled: the next page asks to sign in.
				h.renewSession(s)
				token = s.Values[keyCSRF].(string)
				dirty = true
			case err != nil:
				h.serverError(w, r, fmt.Errorf("load session: %w", err))
				return
			default:
				if l, ok := i18n.ParseLang(user.Lang); ok {
					lang = l
				}
				ctx = withPerson(ctx, user)
				ctx = context.WithValue(ctx, currentSessionKey{}, sess.ID)
			}
		}
		if flashes := takeFlashes(s); len(flashes) > 0 {
			ctx = viewctx.WithFlashes(ctx, flashes)
			dirty = true
		}
		if dirty {
			h.saveSession(w, r, s)
		}
		ctx = viewctx.WithCSRF(ctx, token)
		ctx = viewctx.WithEnv(ctx, h.cfg.UpstreamEnv)
		ctx = viewctx.WithPath(ctx, r.URL.Path)
		ctx = i18n.WithPrinter(ctx, i18n.NewPrinter(lang, h.clk.Zone()))
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// csrf refuses state-changing requests without the session's token, sent either as the
// csrf_token form field or as the X-CSRF-Token header (HTMX).
func (h *Handler) csrf(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
			next.ServeHTTP(w, r)
			return
		}
		want := viewctx.CSRF(r.Context())
		got := r.Header.Get("X-CSRF-Token")
		if got == "" {
			got = r.PostFormValue("csrf_token")
		}
		if !sameToken(got, want) {
			h.log.Warn("csrf token mismatch", "path", r.URL.Path)
			h.renderError(w, r, http.StatusForbidden, i18n.T(r.Context(), "error.csrf"))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// requireSignIn sends anonymous visitors to the sign-in page and back afterwards.
func (h *Handler) requireSignIn(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := viewctx.CurrentPerson(r.Context()); !ok {
			target := "/login"
			if r.Method == http.MethodGet && r.URL.Path != "/" {
				target += "?next=" + url.QueryEscape(r.URL.RequestURI())
			}
			h.redirect(w, r, target)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// require answers 403 unless the signed-in person's role holds perm. Hidden buttons are a
// courtesy; this is the rule.
func (h *Handler) require(perm auth.Permission) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !can(r.Context(), perm) {
				p, _ := viewctx.CurrentPerson(r.Context())
				h.log.Warn("forbidden", "path", r.URL.Path, "method", r.Method, "user", p.Username, "role", string(p.Role))
				h.renderError(w, r, http.StatusForbidden, i18n.T(r.Context(), "error.forbidden"))
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}
