package web

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/sekolah/portal/internal/school"
)

// showSchoolLogo serves the school's logo from the database (instances share nothing
// else). The address of one version (?v=sha256) is cached for good; any other is
// checked again each time.
func (h *Handler) showSchoolLogo(w http.ResponseWriter, r *http.Request) {
	l, err := h.school.Logo(r.Context())
	switch {
	case errors.Is(err, school.ErrNoLogo):
		h.notFound(w, r)
		return
	case err != nil:
		h.serverError(w, r, err)
		return
	}
	etag := `"` + l.SHA256 + `"`
	hd := w.Header()
	hd.Set("ETag", etag)
	hd.Set("Content-Type", l.ContentType)
	hd.Set("X-Content-Type-Options", "nosniff")
	if r.URL.Query().Get("v") == l.SHA256 {
		hd.Set("Cache-Control", "private, max-age=31536000, immutable")
	} else {
		hd.Set("Cache-Control", "private, no-cache")
	}
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	hd.Set("Content-Length", strconv.Itoa(len(l.Data)))
	_, _ = w.Write(l.Data)
}
