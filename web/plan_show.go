package web

import (
	"context"
	"net/http"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/plans"
	"github.com/sekolah/portal/views/pages"
)

// showPlan is a plan's page: its prices and periods, the apply form and its apply jobs.
func (h *Handler) showPlan(w http.ResponseWriter, r *http.Request) {
	p := planFrom(r)
	v, err := h.planView(r.Context(), p, pages.ApplyForm{From: p.From.String(), To: p.To.String()}, nil, nil)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, pages.Plan(v))
}

// planView shapes a plan's page, its apply form as typed (classes and grades chosen).
func (h *Handler) planView(ctx context.Context, p plans.Plan, form pages.ApplyForm, classes, grades []string) (pages.PlanView, error) {
	v := pages.PlanView{ID: p.ID, Name: p.Name, Code: p.Code, ItemName: p.ItemName, Frequency: i18n.T(ctx, p.Frequency.Key()),
		Months: monthsLabel(ctx, p.From, p.To), Account: p.AccountCode, Amount: p.Amount, Penalty: p.Penalty, DueDay: p.DueDay,
		ExpiryDays: p.ExpiryDays, Instalments: p.Instalments, Apply: form, CanWrite: can(ctx, auth.WriteBilling),
		MonthOptions: planMonthOptions(ctx, p)}
	for _, r := range p.Rates {
		v.Rates = append(v.Rates, pages.RateLine{For: rateLabel(ctx, r), Amount: r.Amount})
	}
	for _, pe := range p.Periods() {
		v.Periods = append(v.Periods, pages.PeriodRow{Name: pe.Name, Due: pe.Due, Expiry: pe.Expiry, Active: pe.Active})
	}
	sizes, err := h.plans.Classes(ctx)
	if err != nil {
		return v, err
	}
	chosen := map[string]bool{}
	for _, c := range classes {
		chosen["c"+c] = true
	}
	for _, g := range grades {
		chosen["g"+g] = true
	}
	for _, c := range sizes {
		if n := len(v.Grades); n == 0 || v.Grades[n-1].Grade != c.Grade {
			v.Grades = append(v.Grades, pages.GradeChoice{Grade: c.Grade, Checked: chosen["g"+c.Grade] && c.Grade != ""})
		}
		g := &v.Grades[len(v.Grades)-1]
		g.Classes = append(g.Classes, pages.ClassChoice{Class: c.Class, Grade: c.Grade, Students: c.Students, Checked: chosen["c"+c.Class]})
	}
	jobs, err := h.plans.Jobs(ctx, p.ID, 20)
	if err != nil {
		return v, err
	}
	names := h.staffNames(ctx)
	for _, j := range jobs {
		v.Jobs = append(v.Jobs, pages.JobRow{URL: planJobURL(p.ID, j.ID), State: j.State, StateLabel: jobStateLabel(ctx, j.State),
			Selection: j.Selection, Actor: names(j.Actor), At: j.CreatedAt, Count: j.Done,
			Amount: j.Amount})
	}
	ds, err := h.plans.Discounts(ctx, nil)
	if err != nil {
		return v, err
	}
	for _, d := range ds {
		if d.PlanID == "" || d.PlanID == p.ID {
			v.Discounts++
		}
	}
	return v, nil
}
