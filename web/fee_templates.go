package web

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/internal/registration"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/views/components"
	"github.com/sekolah/portal/views/pages"
)

const (
	// spareRows are the empty rows a template form offers (and adds on "more rows").
	spareRows = 3
	// maxFormRows bounds the rows read from a posted form, whatever it claims.
	maxFormRows = 2 * registration.MaxLines
)

// feeTemplateCtx loads the {id} template once and answers 404 early.
func (h *Handler) feeTemplateCtx(next http.Handler) http.Handler {
	return recordCtx(h, h.db.FeeTemplate, next)
}

func feeTemplateFrom(r *http.Request) store.FeeTemplate { return recordFrom[store.FeeTemplate](r) }

// listFeeTemplates shows every template, marking the one the public form uses.
func (h *Handler) listFeeTemplates(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	list, err := h.db.ListFeeTemplates(ctx)
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

// readTemplateForm reads the posted template form, rows as numbered by the form.
func readTemplateForm(r *http.Request) registration.TemplateInput {
	in := registration.TemplateInput{Name: r.PostFormValue("name")}
	rows, _ := strconv.Atoi(r.PostFormValue("rows"))
	rows = min(max(rows, 0), maxFormRows)
	for i := range rows {
		f := func(part string) string { return r.PostFormValue(registration.LineField(i, part)) }
		in.Lines = append(in.Lines, registration.LineInput{
			Name: f("name"), AccountCode: f("account"), Amount: f("amount"), Penalty: f("penalty"),
			Due: f("due"), Expiry: f("expiry"), Description: f("description"), Optional: f("optional") == "1",
		})
	}
	return in
}

// templateFormView shapes the form for the page with extra empty rows.
func (h *Handler) templateFormView(id string, in registration.TemplateInput, spare int) pages.FeeTemplateFormView {
	v := pages.FeeTemplateFormView{ID: id, Name: in.Name, Errors: map[string]string{}}
	for _, code := range h.cfg.AccountCodes {
		v.Accounts = append(v.Accounts, components.Option{Value: code, Label: code})
	}
	for _, l := range in.Lines {
		v.Lines = append(v.Lines, pages.FeeTemplateLineRow{Name: l.Name, Account: l.AccountCode, Amount: l.Amount,
			Penalty: l.Penalty, Due: l.Due, Expiry: l.Expiry, Description: l.Description, Optional: l.Optional})
	}
	for range min(spare, maxFormRows-len(v.Lines)) {
		v.Lines = append(v.Lines, pages.FeeTemplateLineRow{})
	}
	return v
}

// newFeeTemplate shows an empty template form.
func (h *Handler) newFeeTemplate(w http.ResponseWriter, r *http.Request) {
	in := registration.TemplateInput{}
	h.render(w, r, http.StatusOK, pages.FeeTemplateEdit(h.templateFormView("", in, spareRows)))
}

// editFeeTemplate shows a template in its form.
func (h *Handler) editFeeTemplate(w http.ResponseWriter, r *http.Request) {
	t := feeTemplateFrom(r)
	h.render(w, r, http.StatusOK, pages.FeeTemplateEdit(h.templateFormView(t.ID, registration.InputOf(t), 1)))
}

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
		t   store.FeeTemplate
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
	if errors.Is(err, store.ErrNotFound) {
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

// deleteFeeTemplate removes a template unless the public form uses it.
func (h *Handler) deleteFeeTemplate(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	t := feeTemplateFrom(r)
	err := h.registration.DeleteTemplate(ctx, h.actor(r), t)
	switch {
	case err == nil:
		h.addFlash(w, r, "success", i18n.T(ctx, "feetemplates.deleted_ok", t.Name))
	case errors.Is(err, registration.ErrTemplateInUse):
		h.addFlash(w, r, "error", i18n.T(ctx, "feetemplates.err.in_use", t.Name))
	case errors.Is(err, store.ErrNotFound):
		// Deleted meanwhile by someone else: what the person wanted.
		h.addFlash(w, r, "success", i18n.T(ctx, "feetemplates.deleted_ok", t.Name))
	default:
		h.serverError(w, r, err)
		return
	}
	h.redirect(w, r, "/settings/fee-templates")
}

// showRegistrationSettings shows the public registration form's settings.
func (h *Handler) showRegistrationSettings(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	p, err := h.registration.PublicSettings(ctx)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	h.renderRegistrationSettings(w, r, http.StatusOK, pages.RegistrationSettingsView{Enabled: p.Enabled, TemplateID: p.TemplateID, Class: p.Class})
}

func (h *Handler) renderRegistrationSettings(w http.ResponseWriter, r *http.Request, status int, v pages.RegistrationSettingsView) {
	opts, err := h.templateOptions(r.Context())
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	if len(opts) > 1 {
		v.Templates = opts
	}
	scheme := "http"
	if h.isHTTPS(r) {
		scheme = "https"
	}
	v.PublicURL = scheme + "://" + r.Host + "/register"
	h.render(w, r, status, pages.RegistrationSettings(v))
}

// saveRegistrationSettings switches the public form on or off and sets its template.
func (h *Handler) saveRegistrationSettings(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	p := registration.Public{Enabled: r.PostFormValue("enabled") == "1", TemplateID: r.PostFormValue("template"), Class: r.PostFormValue("class")}
	err := h.registration.SetPublicSettings(ctx, h.actor(r), p)
	if err == nil {
		h.addFlash(w, r, "success", i18n.T(ctx, "registration.settings.saved"))
		h.redirect(w, r, "/settings/registration")
		return
	}
	ps, ok := problem.As(err)
	if !ok {
		h.serverError(w, r, err)
		return
	}
	h.renderRegistrationSettings(w, r, http.StatusUnprocessableEntity, pages.RegistrationSettingsView{
		Enabled: p.Enabled, TemplateID: p.TemplateID, Class: p.Class, Errors: problemMessages(ctx, ps),
	})
}
