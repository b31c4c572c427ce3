package web

import (
	"context"
	"net/http"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/plans"
	"github.com/sekolah/portal/internal/students"
	"github.com/sekolah/portal/views/pages"
)

// studentReprice reads what the plans, with the student's discounts as they are now,
// make of the student's unpaid components.
func (h *Handler) studentReprice(ctx context.Context, st students.Student) (plans.Reprice, error) {
	all, err := h.plans.Plans(ctx)
	if err != nil {
		return plans.Reprice{}, err
	}
	return h.plans.Reprice(ctx, all, []string{st.NIS})
}

func (h *Handler) discountFixView(ctx context.Context, st students.Student, rp plans.Reprice) pages.FixView {
	v := fixView(ctx, rp)
	v.Title, v.Lead = i18n.T(ctx, "discounts.fix.title"), i18n.T(ctx, "discounts.fix.lead", st.Name)
	v.BackURL, v.BackLabel, v.Action = discountsURL(st.NIS), i18n.T(ctx, "discounts.title"), discountsURL(st.NIS, "/correct/confirm")
	v.Reason = i18n.T(ctx, "discounts.fix.reason_default")
	return v
}

// correctDiscounts offers to correct the student's unpaid components after their
// discounts changed: old → new, a 100% scholarship cancelling, the paid ones untouched.
func (h *Handler) correctDiscounts(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := studentFrom(r)
	rp, err := h.studentReprice(ctx, st)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, pages.PlanFix(h.discountFixView(ctx, st, rp)))
}

// confirmCorrectDiscounts submits that correction when it is what the person saw.
func (h *Handler) confirmCorrectDiscounts(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if err := r.ParseForm(); err != nil {
		h.renderError(w, r, http.StatusBadRequest, "")
		return
	}
	st := studentFrom(r)
	rp, err := h.studentReprice(ctx, st)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	h.submitFix(w, r, rp, h.discountFixView(ctx, st, rp), discountsURL(st.NIS))
}
