package web

import (
	"net/http"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/component"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/views/components"
	"github.com/sekolah/portal/views/pages"
)

// dayValue is a component day as a date input holds it ("" for none).
func dayValue(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format("2006-01-02")
}

// componentEditView shapes the edit form of b with the values vals (as typed, or as b
// holds them).
func (h *Handler) componentEditView(r *http.Request, b billing.Bill, vals map[string]string) pages.ComponentEditView {
	ctx := r.Context()
	v := pages.ComponentEditView{Student: studentInfo(studentFrom(r)), ID: b.ComponentID, Name: b.Name, Values: vals,
		Errors: map[string]string{}, Refused: refusalText(ctx, b), Back: correctionBack(r, b.NIS),
		Expired: component.On(b, h.today()).Status == component.StatusExpired}
	for _, code := range h.cfg.AccountCodes {
		v.Accounts = append(v.Accounts, components.Option{Value: code, Label: code})
	}
	return v
}

// componentValues are b's fields as the form shows them.
func componentValues(b billing.Bill) map[string]string {
	return map[string]string{
		component.FieldName: b.Name, component.FieldAccount: b.AccountCode,
		component.FieldAmount: i18n.Number(b.Amount), component.FieldPenalty: i18n.Number(b.Penalty),
		component.FieldDue: dayValue(b.Due), component.FieldExpiry: dayValue(b.Expiry), component.FieldActive: dayValue(b.Active),
		component.FieldNotes: b.Notes,
	}
}

// editComponent shows the form to correct one component, or why it cannot be corrected.
func (h *Handler) editComponent(w http.ResponseWriter, r *http.Request) {
	b := componentFrom(r)
	v := h.componentEditView(r, b, componentValues(b))
	h.page(w, r, http.StatusOK, pages.ComponentEdit(v), pages.ComponentEditCard(v))
}
