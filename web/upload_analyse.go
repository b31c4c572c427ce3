package web

import "net/http"

// analyseUpload checks a held upload (the person confirmed despite the earlier upload of
// the same file) or checks again one the service did not answer for.
func (h *Handler) analyseUpload(w http.ResponseWriter, r *http.Request) {
	h.uploadStep(w, r, "uploads.reanalysing", h.uploads.Analyse(r.Context(), uploadFrom(r).ID, h.actor(r)))
}
