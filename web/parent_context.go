package web

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/sekolah/portal/internal/parents"
	"github.com/sekolah/portal/views/pages"
)

// parentGuard stands before every parent page (/p/{token}/…): the answer is kept out of
// search engines, caches and referrers (the token is in its address), and an address
// that opened too many pages, or tried too many wrong links, is told to wait.
func (h *Handler) parentGuard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("X-Robots-Tag", "noindex, nofollow, noarchive")
		hd.Set("Referrer-Policy", "no-referrer")
		hd.Set("Cache-Control", "private, no-store")
		if ok, wait := h.parentPages.Allow(h.clientIP(r)); !ok {
			hd.Set("Retry-After", strconv.Itoa(int(wait.Seconds())+1))
			h.render(w, r, http.StatusTooManyRequests, pages.ParentLimited(int(wait.Minutes())+1))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// parentToken is the token of a parent page's address.
func parentToken(r *http.Request) string { return chi.URLParam(r, "token") }

// parentFailed answers a parent page that could not be read: a wrong or renewed link is
// the same plain 404 for both (and counts against the address); anything else is logged
// and said plainly.
func (h *Handler) parentFailed(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, parents.ErrNoLink) || errors.Is(err, parents.ErrNoReceipt) {
		h.parentPages.Miss(h.clientIP(r))
		h.render(w, r, http.StatusNotFound, pages.ParentMissing())
		return
	}
	h.log.Error("parent page", "err", err)
	h.render(w, r, http.StatusInternalServerError, pages.ParentMissing())
}

// parentPath is a path under the parent page of token.
func parentPath(token, rest string) string { return "/p/" + token + rest }
