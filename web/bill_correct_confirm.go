package web

import (
	"net/http"

	"github.com/sekolah/portal/internal/corrections"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/views/pages"
)

// confirmBillsCorrection computes the selection again; when it is what the person saw
// (the same fingerprint) the job is submitted and its progress page opens, else the new
// preview is shown to be confirmed again.
func (h *Handler) confirmBillsCorrection(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if err := r.ParseForm(); err != nil {
		h.renderError(w, r, http.StatusBadRequest, "")
		return
	}
	v, req, fprobs := h.bulkSelection(ctx, r.PostForm)
	bulkForm(&v, r.PostForm)
	c, probs := bulkChange(v)
	if len(fprobs) > 0 || len(probs) > 0 {
		v.Errors = problemMessages(ctx, probs)
		if len(fprobs) > 0 {
			v.General = bulkFilterMessage(ctx, fprobs)
		}
		h.page(w, r, http.StatusUnprocessableEntity, pages.BulkCorrection(v), pages.BulkCorrectionBody(v))
		return
	}
	p, err := corrections.Bulk(ctx, h.ledger, req.Query, c)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	if p.TooMany || p.Count == 0 || p.Fingerprint != r.PostForm.Get("fingerprint") {
		v.Preview = h.bulkPreviewView(ctx, p)
		v.Preview.Changed = !p.TooMany
		h.page(w, r, http.StatusConflict, pages.BulkCorrection(v), pages.BulkCorrectionBody(v))
		return
	}
	job := p.Request(selectionString(v))
	job.Actor = h.actor(r)
	id, err := h.corrections.Submit(ctx, job)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	h.addFlash(w, r, "success", i18n.T(ctx, "corrections.bulk.started", p.Count))
	h.redirect(w, r, correctionURL(id))
}
