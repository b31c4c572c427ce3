package web

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/sekolah/portal/views/viewctx"
)

// endOwnSession ends one of the person's own sessions (another device, or this one).
func (h *Handler) endOwnSession(w http.ResponseWriter, r *http.Request) {
	p, _ := viewctx.CurrentPerson(r.Context())
	h.endSession(w, r, p.ID, chi.URLParam(r, "sid"), "/account")
}
