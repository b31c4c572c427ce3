package web

import (
	"errors"
	"github.com/sekolah/portal/views/pages"
	"net/http"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/registration"
)

// deleteFeeTemplate removes a template unless the public form uses it.
func (h *Handler) deleteFeeTemplate(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	t := feeTemplateFrom(r)
	if !h.confirmed(w, r, pages.ConfirmStep{
		Title: i18n.T(ctx, "confirm.template_delete", t.Name), Question: i18n.T(ctx, "feetemplates.delete_confirm", t.Name),
		Button: i18n.T(ctx, "btn.delete"), Danger: true, Back: "/settings/fee-templates",
	}) {
		return
	}
	err := h.registration.DeleteTemplate(ctx, h.actor(r), t)
	switch {
	case err == nil:
		h.addFlash(w, r, "success", i18n.T(ctx, "feetemplates.deleted_ok", t.Name))
	case errors.Is(err, registration.ErrTemplateInUse):
		h.addFlash(w, r, "error", i18n.T(ctx, "feetemplates.err.in_use", t.Name))
	case errors.Is(err, registration.ErrNotFound):
		// Deleted meanwhile by someone else: what the person wanted.
		h.addFlash(w, r, "success", i18n.T(ctx, "feetemplates.deleted_ok", t.Name))
	default:
		h.serverError(w, r, err)
		return
	}
	h.redirect(w, r, "/settings/fee-templates")
}
