package web

import (
	"net/http"

	"github.com/sekolah/portal/internal/corrections"
	"github.com/sekolah/portal/views/pages"
)

// previewBillsCorrection checks the bulk form and shows exactly what it will do,
// computed from the ledger, with the confirmation carrying the selection's fingerprint.
func (h *Handler) previewBillsCorrection(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if err := r.ParseForm(); err != nil {
		h.renderError(w, r, http.StatusBadRequest, "")
		return
	}
	v, req, fprobs := h.bulkSelection(ctx, r.PostForm)
	bulkForm(&v, r.PostForm)
	c, probs := bulkChange(v)
	switch {
	case len(fprobs) > 0:
		v.General = bulkFilterMessage(ctx, fprobs)
	case len(probs) > 0:
		v.Errors = problemMessages(ctx, probs)
	default:
		p, err := corrections.Bulk(ctx, h.ledger, req.Query, c)
		if err != nil {
			h.serverError(w, r, err)
			return
		}
		v.Preview = h.bulkPreviewView(ctx, p)
		h.page(w, r, http.StatusOK, pages.BulkCorrection(v), pages.BulkCorrectionBody(v))
		return
	}
	h.page(w, r, http.StatusUnprocessableEntity, pages.BulkCorrection(v), pages.BulkCorrectionBody(v))
}
