package web

import (
	"net/http"

	"github.com/sekolah/portal/views/pages"
)

// newComponents shows the form; ?rows=N asks for N rows (how "add row" works without
// JavaScript), and row values in the query are kept (how HTMX adds one instantly).
func (h *Handler) newComponents(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := h.componentsForm(r, readComponentRows(q, rowCount(q)))
	h.page(w, r, http.StatusOK, pages.StudentComponentsNew(f), pages.ComponentsFormCard(f))
}
