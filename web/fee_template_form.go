package web

import (
	"net/http"
	"strconv"

	"github.com/sekolah/portal/internal/registration"
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
	return recordCtx(h, h.registration.Template, next)
}

func feeTemplateFrom(r *http.Request) registration.FeeTemplate {
	return recordFrom[registration.FeeTemplate](r)
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
