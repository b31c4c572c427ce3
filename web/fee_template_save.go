package web

import (
	"errors"
	"net/http"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/internal/registration"
	"github.com/sekolah/portal/views/pages"
)

// createFeeTemplate stores a new template; "more rows" only gives the form more rows.
func (h *Handler) createFeeTemplate(w http.ResponseWriter, r *http.Request) {
	h.saveFeeTemplate(w, r, "")
}

// updateFeeTemplate replaces a template's name and lines.
func (h *Handler) updateFeeTemplate(w http.ResponseWriter, r *http.Request) {
	h.saveFeeTemplate(w, r, feeTemplateFrom(r).ID)
}

func (h *Handler) saveFeeTemplate(w http.ResponseWriter, r *http.Request, id string) {
	ctx := r.Context()
	in := readTemplateForm(r)
	if r.PostFormValue("more") != "" {
		v := h.templateFormView(id, in, spareRows)
		h.page(w, r, http.StatusOK, pages.FeeTemplateEdit(v), pages.FeeTemplateForm(v))
		return
	}
	var (
		t   registration.FeeTemplate
		err error
		key = "feetemplates.created_ok"
	)
	if id == "" {
		t, err = h.registration.CreateTemplate(ctx, h.actor(r), in)
	} else {
		t, err = h.registration.UpdateTemplate(ctx, h.actor(r), id, in)
		key = "feetemplates.updated_ok"
	}
	if err == nil {
		h.addFlash(w, r, "success", i18n.T(ctx, key, t.Name))
		h.redirect(w, r, "/settings/fee-templates")
		return
	}
	if errors.Is(err, registration.ErrNotFound) {
		h.notFound(w, r)
		return
	}
	ps, ok := problem.As(err)
	if !ok {
		h.serverError(w, r, err)
		return
	}
	v := h.templateFormView(id, in, 0)
	v.Errors = problemMessages(ctx, ps)
	h.page(w, r, http.StatusUnprocessableEntity, pages.FeeTemplateEdit(v), pages.FeeTemplateForm(v))
}
