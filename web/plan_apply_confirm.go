package web

import (
	"errors"
	"net/http"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/plans"
	"github.com/sekolah/portal/views/pages"
)

// confirmApply computes the preview again; when it is what the person saw (the same
// fingerprint) the apply job is submitted and its page opens, else the new preview is
// shown to be confirmed again (409).
func (h *Handler) confirmApply(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if err := r.ParseForm(); err != nil {
		h.renderError(w, r, http.StatusBadRequest, "")
		return
	}
	p := planFrom(r)
	f := applyForm(r)
	pv, probs, err := h.applyPreview(ctx, p, f)
	switch {
	case err != nil:
		h.serverError(w, r, err)
		return
	case len(probs) > 0:
		h.applyAgain(w, r, p, f, probs)
		return
	case pv.Fingerprint != r.PostForm.Get("fingerprint"):
		v := h.previewView(ctx, pv, f)
		v.Changed = true
		h.render(w, r, http.StatusConflict, pages.PlanPreview(v))
		return
	}
	id, err := h.plans.Submit(ctx, h.actor(r), pv)
	if errors.Is(err, plans.ErrNothing) {
		h.addFlash(w, r, "info", i18n.T(ctx, "plans.preview.nothing"))
		h.redirect(w, r, planURL(p.ID))
		return
	} else if err != nil {
		h.serverError(w, r, err)
		return
	}
	h.addFlash(w, r, "success", i18n.T(ctx, "plans.apply.started", pv.Create))
	h.redirect(w, r, planJobURL(p.ID, id))
}
