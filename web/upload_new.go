package web

import (
	"context"
	"net/http"
	"strconv"

	"github.com/sekolah/portal/internal/uploads"
	"github.com/sekolah/portal/views/pages"
)

func (h *Handler) uploadNewView(ctx context.Context, form pages.UploadForm) (pages.UploadNewView, error) {
	v := pages.UploadNewView{Form: form, Kinds: uploadKindOptions(ctx), Accept: uploads.Accept,
		MaxMB: strconv.FormatInt(h.cfg.UploadMaxBytes>>20, 10)}
	if h.cfg.UploadMaxBytes < 1<<20 {
		v.MaxMB = strconv.FormatFloat(float64(h.cfg.UploadMaxBytes)/(1<<20), 'f', 1, 64)
	}
	if v.Form.Kind == "" {
		v.Form.Kind = string(uploads.Components)
	}
	active, err := h.uploads.Active(ctx)
	if err != nil {
		return v, err
	}
	name := h.staffNames(ctx)
	for _, j := range active {
		v.Active = append(v.Active, h.uploadListRow(ctx, j, name))
	}
	return v, nil
}

// showUploadForm shows the upload form, the templates and the uploads not finished yet.
func (h *Handler) showUploadForm(w http.ResponseWriter, r *http.Request) {
	v, err := h.uploadNewView(r.Context(), pages.UploadForm{Kind: r.URL.Query().Get("kind")})
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, pages.UploadNew(v))
}
