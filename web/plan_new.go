package web

import (
	"net/http"

	"github.com/sekolah/portal/internal/plans"
	"github.com/sekolah/portal/views/pages"
)

// newPlan is the form of a new fee plan, filled with what a school year's SPP usually is.
func (h *Handler) newPlan(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	year := plans.MonthOfDay(h.clk.Day())
	if year.Month() < 7 {
		year = year.Add(-12)
	}
	start := plans.MonthOf(year.Year(), 7)
	f := plans.Form{Frequency: string(plans.Monthly), From: start.String(), To: start.Add(11).String(), DueDay: "10",
		ExpiryDays: "30", Instalments: "1"}
	if len(h.cfg.AccountCodes) > 0 {
		f.AccountCode = h.cfg.AccountCodes[0]
	}
	v := h.planFormView(ctx, "", "", f, nil)
	h.page(w, r, http.StatusOK, pages.PlanForm(v), pages.PlanFormCard(v))
}
