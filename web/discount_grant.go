package web

import (
	"net/http"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/plans"
	"github.com/sekolah/portal/views/pages"
)

// grantDiscount gives the student a discount (or a scholarship): a form that is wrong
// answers 422 with what was typed; then the correction of their unpaid components the
// discount covers is offered, when there are any.
func (h *Handler) grantDiscount(w http.ResponseWriter, r *http.Request) {
	h.saveDiscount(w, r, nil)
}

// changeDiscount changes one of the student's discounts.
func (h *Handler) changeDiscount(w http.ResponseWriter, r *http.Request) {
	d, ok := h.discountFrom(w, r)
	if !ok {
		return
	}
	h.saveDiscount(w, r, &d)
}

// editDiscount is the form to change one of the student's discounts.
func (h *Handler) editDiscount(w http.ResponseWriter, r *http.Request) {
	d, ok := h.discountFrom(w, r)
	if !ok {
		return
	}
	v, err := h.discountsView(r.Context(), studentFrom(r), &d, plans.DiscountFormOf(d), nil)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	h.page(w, r, http.StatusOK, pages.StudentDiscounts(v), pages.DiscountForm(v.Form))
}

func (h *Handler) saveDiscount(w http.ResponseWriter, r *http.Request, old *plans.Discount) {
	ctx := r.Context()
	if err := r.ParseForm(); err != nil {
		h.renderError(w, r, http.StatusBadRequest, "")
		return
	}
	st := studentFrom(r)
	f := discountForm(r)
	d, probs, err := h.plans.Grant(ctx, h.actor(r), st, old, f)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	if len(probs) > 0 {
		v, err := h.discountsView(ctx, st, old, f, problemMessages(ctx, probs))
		if err != nil {
			h.serverError(w, r, err)
			return
		}
		h.page(w, r, http.StatusUnprocessableEntity, pages.StudentDiscounts(v), pages.DiscountForm(v.Form))
		return
	}
	key := "discounts.granted"
	if old != nil {
		key = "discounts.changed"
	}
	h.addFlash(w, r, "success", i18n.T(ctx, key, d.Text(i18n.From(ctx)), st.Name))
	h.afterDiscount(w, r)
}

// afterDiscount goes on to the correction of the student's unpaid components when a
// discount changed what they should ask, else back to the discounts.
func (h *Handler) afterDiscount(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := studentFrom(r)
	all, err := h.plans.Plans(ctx)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	rp, err := h.plans.Reprice(ctx, all, []string{st.NIS})
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	if rp.Count() > 0 {
		h.redirect(w, r, discountsURL(st.NIS, "/correct"))
		return
	}
	h.redirect(w, r, discountsURL(st.NIS))
}

// removeDiscount takes one of the student's discounts away (audited); the correction of
// their unpaid components back to the full price is offered next.
func (h *Handler) removeDiscount(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	d, ok := h.discountFrom(w, r)
	if !ok {
		return
	}
	st := studentFrom(r)
	if err := h.plans.Remove(ctx, h.actor(r), st, d); err != nil {
		h.serverError(w, r, err)
		return
	}
	h.addFlash(w, r, "success", i18n.T(ctx, "discounts.removed", d.Text(i18n.From(ctx)), st.Name))
	h.afterDiscount(w, r)
}
