package web

import (
	"context"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/plans"
	"github.com/sekolah/portal/internal/students"
	"github.com/sekolah/portal/views/components"
	"github.com/sekolah/portal/views/pages"
)

// listDiscounts is a student's discounts and scholarships, with the form to grant one.
func (h *Handler) listDiscounts(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := studentFrom(r)
	v, err := h.discountsView(ctx, st, nil, plans.DiscountForm{Kind: string(plans.Percent)}, nil)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, pages.StudentDiscounts(v))
}

// discountsView shapes a student's discounts page; editing, when set, is the discount the
// form changes.
func (h *Handler) discountsView(ctx context.Context, st students.Student, editing *plans.Discount, f plans.DiscountForm, errs map[string]string) (pages.StudentDiscountsView, error) {
	v := pages.StudentDiscountsView{Student: studentInfo(st), CanWrite: can(ctx, auth.WriteBilling)}
	v.Aid = aidNames(st)
	if status := students.StatusOf(st.Status); !status.Active() {
		v.Status = i18n.T(ctx, status.Key())
	}
	all, err := h.plans.Plans(ctx)
	if err != nil {
		return v, err
	}
	names := map[string]string{}
	for _, p := range all {
		names[p.ID] = p.Name
	}
	ds, err := h.plans.Discounts(ctx, []string{st.NIS})
	if err != nil {
		return v, err
	}
	pr := i18n.From(ctx)
	staff := h.staffNames(ctx)
	for _, d := range ds {
		row := pages.DiscountRow{ID: d.ID, Plan: names[d.PlanID], Size: d.Text(pr), Reason: d.ReasonText(pr),
			Months: discountMonths(ctx, d), GrantedBy: staff(d.GrantedBy) + " · " + pr.Date(d.CreatedAt),
			EditURL: discountsURL(st.NIS, "/", d.ID), DeleteURL: discountsURL(st.NIS, "/", d.ID, "/delete")}
		if d.PlanID == "" {
			row.Plan = i18n.T(ctx, "discounts.all_plans")
		}
		v.Rows = append(v.Rows, row)
	}
	form := pages.DiscountFormView{Action: discountsURL(st.NIS), Errors: errs, Values: map[string]string{
		"plan": f.Plan, "kind": f.Kind, "value": f.Value, "reason": f.Reason, "note": f.Note, "from": f.From, "to": f.To}}
	if editing != nil {
		form.Action, form.Editing = discountsURL(st.NIS, "/", editing.ID), true
	}
	if form.Errors == nil {
		form.Errors = map[string]string{}
	}
	form.Plans = append(form.Plans, components.Option{Value: "", Label: i18n.T(ctx, "discounts.all_plans")})
	for _, p := range all {
		form.Plans = append(form.Plans, components.Option{Value: p.ID, Label: p.Name})
	}
	form.Kinds = []components.Option{{Value: string(plans.Percent), Label: i18n.T(ctx, "discounts.kind.percent")},
		{Value: string(plans.Amount), Label: i18n.T(ctx, "discounts.kind.amount")}}
	known := false
	for _, reason := range plans.Reasons {
		form.Reasons = append(form.Reasons, components.Option{Value: string(reason), Label: i18n.T(ctx, reason.Key())})
		known = known || string(reason) == f.Reason
	}
	if !known && f.Reason != "" {
		// Words of their own were sent as the reason: they are the note of "other".
		form.Values["reason"], form.Values["note"] = string(plans.Other), strings.TrimSpace(f.Reason+" "+f.Note)
	}
	v.Form = form
	return v, nil
}

// discountMonths says the months a discount covers ("every month" when open).
func discountMonths(ctx context.Context, d plans.Discount) string {
	switch {
	case d.From.IsZero() && d.To.IsZero():
		return i18n.T(ctx, "discounts.all_months")
	case d.To.IsZero():
		return i18n.T(ctx, "discounts.since", monthLabel(ctx, d.From))
	case d.From.IsZero():
		return i18n.T(ctx, "discounts.until", monthLabel(ctx, d.To))
	}
	return monthsLabel(ctx, d.From, d.To)
}

// discountFrom loads the {did} discount of the student of the route; false (after
// answering 404) when it is none of theirs.
func (h *Handler) discountFrom(w http.ResponseWriter, r *http.Request) (plans.Discount, bool) {
	d, err := h.plans.Discount(r.Context(), chi.URLParam(r, "did"))
	switch {
	case isNotFound(err) || err == nil && d.NIS != studentFrom(r).NIS:
		h.notFound(w, r)
		return d, false
	case err != nil:
		h.serverError(w, r, err)
		return d, false
	}
	return d, true
}

// discountForm reads a discount's form.
func discountForm(r *http.Request) plans.DiscountForm {
	v := r.PostForm
	return plans.DiscountForm{Plan: v.Get("plan"), Kind: v.Get("kind"), Value: v.Get("value"), Reason: v.Get("reason"),
		Note: v.Get("note"), From: v.Get("from"), To: v.Get("to")}
}

// aidNames names the government-aid flags of a student's record ("KIP, PIP").
func aidNames(st students.Student) string {
	var aid []string
	for _, a := range []struct {
		on   bool
		name string
	}{{st.Aid.KIP, "KIP"}, {st.Aid.KPS, "KPS"}, {st.Aid.PIP, "PIP"}} {
		if a.on {
			aid = append(aid, a.name)
		}
	}
	return strings.Join(aid, ", ")
}
