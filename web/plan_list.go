package web

import (
	"net/http"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/views/pages"
)

// listPlans is the list of fee plans, with what each made.
func (h *Handler) listPlans(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	list, err := h.plans.Plans(ctx)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	counts, err := h.plans.Counts(ctx)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	v := pages.PlansView{CanWrite: can(ctx, auth.WriteBilling)}
	for _, p := range list {
		c := counts[p.Code]
		v.Rows = append(v.Rows, pages.PlanRow{URL: planURL(p.ID), Name: p.Name, Code: p.Code, Frequency: i18n.T(ctx, p.Frequency.Key()),
			Months: monthsLabel(ctx, p.From, p.To), Account: p.AccountCode, Amount: p.Amount, Rates: len(p.Rates),
			Components: c.Components, Paid: c.Paid})
	}
	h.render(w, r, http.StatusOK, pages.Plans(v))
}
