package web

import (
	"net/http"

	"github.com/sekolah/portal/internal/registration"
	"github.com/sekolah/portal/views/pages"
)

// newFeeTemplate shows an empty template form.
func (h *Handler) newFeeTemplate(w http.ResponseWriter, r *http.Request) {
	in := registration.TemplateInput{}
	h.render(w, r, http.StatusOK, pages.FeeTemplateEdit(h.templateFormView("", in, spareRows)))
}
