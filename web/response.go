package web

import (
	"bytes"
	"context"
	"fmt"
	"mime"
	"net/http"
	"strconv"

	"github.com/a-h/templ"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/sekolah/portal/internal/billlist"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/views/pages"
	"github.com/sekolah/portal/views/viewctx"
)

// isPartial reports whether the request wants a fragment: an HTMX request that is not a
// boosted navigation, nor the back button restoring a page htmx has not cached (htmx sends
// that one with HX-Request too, and puts the answer in place of the whole body).
func isPartial(r *http.Request) bool {
	return r.Header.Get("HX-Request") == "true" && r.Header.Get("HX-Boosted") != "true" &&
		r.Header.Get("HX-History-Restore-Request") != "true"
}

// render writes a component with status. The component is rendered into a buffer first so a
// template error becomes a clean 500 instead of half a page.
func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, c templ.Component) {
	ctx := h.shellContext(r.Context())
	var buf bytes.Buffer
	if err := c.Render(ctx, &buf); err != nil {
		if isCancellation(err) && r.Context().Err() != nil {
			// Nobody is left to read the page.
			h.log.Info("client went away", "method", r.Method, "path", r.URL.Path, "request_id", middleware.GetReqID(ctx))
			return
		}
		h.log.Error("render", "path", r.URL.Path, "err", err)
		status, buf = http.StatusInternalServerError, bytes.Buffer{}
		_ = pages.Error(errorView(ctx, status, "", middleware.GetReqID(ctx))).Render(ctx, &buf)
	}
	hd := w.Header()
	hd.Set("Content-Type", "text/html; charset=utf-8")
	hd.Add("Vary", "HX-Request")
	hd.Set("Cache-Control", "no-store")
	hd.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// shellContext gives a page rendered before loadSession ran, or after it failed (the
// database down: the 500 page), the upstream environment of its banner. It comes from the
// configuration, never from the database, so a test or production portal never shows the
// sandbox's banner on its error page.
func (h *Handler) shellContext(ctx context.Context) context.Context {
	if viewctx.Env(ctx) == "" {
		ctx = viewctx.WithEnv(ctx, h.cfg.UpstreamEnv)
	}
	return ctx
}

// page renders the full page, or only the partial when HTMX asks for a fragment. The full
// page embeds the same partial, so both always agree.
func (h *Handler) page(w http.ResponseWriter, r *http.Request, status int, full, partial templ.Component) {
	if partial != nil && isPartial(r) {
		h.render(w, r, status, partial)
		return
	}
	h.render(w, r, status, full)
}

// redirect answers a successful POST: 303 for a plain browser, HX-Redirect for HTMX
// (a 3xx would be followed by the XHR and swapped in as a fragment).
func (h *Handler) redirect(w http.ResponseWriter, r *http.Request, target string) {
	if r.Header.Get("HX-Request") == "true" {
		w.Header().Set("HX-Redirect", target)
		w.WriteHeader(http.StatusOK)
		return
	}
	http.Redirect(w, r, target, http.StatusSeeOther)
}

func errorView(ctx context.Context, status int, message, requestID string) pages.ErrorView {
	code := status
	switch code {
	case http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound, http.StatusRequestTimeout, http.StatusRequestEntityTooLarge:
	default:
		if code >= 500 {
			code = http.StatusInternalServerError
		} else {
			code = http.StatusBadRequest
		}
	}
	v := pages.ErrorView{
		Status: status,
		Title:  i18n.T(ctx, fmt.Sprintf("error.%d.title", code)),
		Body:   i18n.T(ctx, fmt.Sprintf("error.%d.body", code)),
	}
	if message != "" {
		v.Body = message
	}
	if status >= 500 {
		v.RequestID = requestID
	}
	return v
}

// renderError shows the error page in the shell, or just its message for HTMX, which
// the layout's alert area receives.
func (h *Handler) renderError(w http.ResponseWriter, r *http.Request, status int, message string) {
	v := errorView(r.Context(), status, message, middleware.GetReqID(r.Context()))
	if isPartial(r) {
		w.Header().Set("HX-Retarget", "#alerts")
		w.Header().Set("HX-Reswap", "innerHTML")
		h.render(w, r, status, pages.ErrorAlert(v))
		return
	}
	h.render(w, r, status, pages.Error(v))
}

// serverError logs the detail once and shows the person a plain message. A failure that
// is only the request's cancellation (its person went away) is not an error: noted at
// INFO, and nothing is written, as nobody reads it.
func (h *Handler) serverError(w http.ResponseWriter, r *http.Request, err error) {
	if isCancellation(err) && r.Context().Err() != nil {
		h.log.Info("client went away", "method", r.Method, "path", r.URL.Path, "err", err,
			"request_id", middleware.GetReqID(r.Context()))
		return
	}
	h.log.Error("internal error", "method", r.Method, "path", r.URL.Path, "err", err,
		"request_id", middleware.GetReqID(r.Context()))
	h.renderError(w, r, http.StatusInternalServerError, "")
}

// notFound shows the 404 page.
func (h *Handler) notFound(w http.ResponseWriter, r *http.Request) {
	h.renderError(w, r, http.StatusNotFound, "")
}

// xlsxType is the media type of .xlsx files.
const xlsxType = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

// offsetParam is the row a paged list of limit rows per page starts at: ?offset=, or the
// first row of ?page= (the pager's jump form), never below 0 nor above billlist.MaxOffset,
// whatever the URL says: the database and the service only ever see an offset in range.
func offsetParam(r *http.Request, limit int) int {
	return billlist.Offset(r.URL.Query(), limit)
}

// sendXLSX answers with a workbook to download under name.
func sendXLSX(w http.ResponseWriter, name string, body []byte) {
	hd := w.Header()
	hd.Set("Content-Type", xlsxType)
	hd.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name}))
	hd.Set("Cache-Control", "no-store")
	hd.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// cutRunes is s cut to its first n characters: what a page shows back of a value too long
// to be used (a search of 50,000 characters).
func cutRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}
