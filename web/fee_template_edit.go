package web

import (
	"net/http"

	"github.com/sekolah/portal/internal/registration"
	"github.com/sekolah/portal/views/pages"
)

// editFeeTemplate shows a template in its form.
func (h *Handler) editFeeTemplate(w http.ResponseWriter, r *http.Request) {
	t := feeTemplateFrom(r)
	h.render(w, r, http.StatusOK, pages.FeeTemplateEdit(h.templateFormView(t.ID, registration.InputOf(t), 1)))
}
