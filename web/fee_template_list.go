package web

import (
	"net/http"

	"github.com/sekolah/portal/views/pages"
)

// listFeeTemplates shows every template, marking the one the public form uses.
func (h *Handler) listFeeTemplates(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	list, err := h.registration.Templates(ctx)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	pub, err := h.registration.PublicSettings(ctx)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	var v pages.FeeTemplatesView
	for _, t := range list {
		v.Rows = append(v.Rows, pages.FeeTemplateRow{ID: t.ID, Name: t.Name, Lines: len(t.Lines), Total: t.Total(),
			Public: pub.Enabled && pub.TemplateID == t.ID, UpdatedAt: t.UpdatedAt})
	}
	h.render(w, r, http.StatusOK, pages.FeeTemplates(v))
}
