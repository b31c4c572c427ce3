package web

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/plans"
	"github.com/sekolah/portal/views/components"
	"github.com/sekolah/portal/views/pages"
)

// The fee plans' pages: the plan loaded once per {id} route, their addresses, and what
// their views share.

// planCtx loads the {id} plan once and answers 404 early.
func (h *Handler) planCtx(next http.Handler) http.Handler { return recordCtx(h, h.plans.Plan, next) }

func planFrom(r *http.Request) plans.Plan { return recordFrom[plans.Plan](r) }

// planURL is a plan's page, or one below it (sub starts with "/").
func planURL(id string, sub ...string) string {
	u := "/plans/" + url.PathEscape(id)
	for _, s := range sub {
		u += s
	}
	return u
}

// planJobURL is an apply job's page.
func planJobURL(planID, jobID string) string { return planURL(planID, "/jobs/", url.PathEscape(jobID)) }

// kartuURL is a plan's kartu SPP for class ("" for the classes' overview).
func kartuURL(planID, class string) string {
	if class == "" {
		return planURL(planID, "/kartu")
	}
	return planURL(planID, "/kartu?class=", url.QueryEscape(class))
}

// discountsURL is a student's discounts page, or one below it.
func discountsURL(nis string, sub ...string) string {
	u := studentURL(nis) + "/discounts"
	for _, s := range sub {
		u += s
	}
	return u
}

// monthLabel says month m ("Juli 2026").
func monthLabel(ctx context.Context, m plans.Month) string {
	if m.IsZero() {
		return ""
	}
	return i18n.From(ctx).MonthName(m.Month()) + " " + strconv.Itoa(m.Year())
}

// monthsLabel says a range of months ("Juli 2026 – Juni 2027"; one month alone).
func monthsLabel(ctx context.Context, from, to plans.Month) string {
	if from == to {
		return monthLabel(ctx, from)
	}
	return monthLabel(ctx, from) + " – " + monthLabel(ctx, to)
}

// planMonthOptions are the months of plan p, for the apply form.
func planMonthOptions(ctx context.Context, p plans.Plan) []components.Option {
	var out []components.Option
	for m := p.From; m <= p.To; m++ {
		out = append(out, components.Option{Value: m.String(), Label: monthLabel(ctx, m)})
	}
	return out
}

// rateLabel says what a rate is for ("tingkat 8", "Kelas 8A").
func rateLabel(ctx context.Context, r plans.Rate) string {
	if r.Scope == plans.ScopeGrade {
		return i18n.T(ctx, "plans.apply.grade", r.Target)
	}
	return r.Target
}

// planFormView shapes a plan's form from what was typed and its problems.
func (h *Handler) planFormView(ctx context.Context, id, code string, f plans.Form, errs map[string]string) pages.PlanFormView {
	v := pages.PlanFormView{ID: id, Code: code, Errors: errs, Values: map[string]string{
		"name": f.Name, "code": f.Code, "item_name": f.ItemName, "account_code": f.AccountCode, "amount": f.Amount,
		"penalty_amount": f.Penalty, "frequency": f.Frequency, "from": f.From, "to": f.To, "due_day": f.DueDay,
		"expiry_days": f.ExpiryDays, "instalments": f.Instalments,
	}}
	if v.Errors == nil {
		v.Errors = map[string]string{}
	}
	for _, a := range h.cfg.AccountCodes {
		v.Accounts = append(v.Accounts, components.Option{Value: a, Label: a})
	}
	for _, fr := range plans.Frequencies {
		v.Frequencies = append(v.Frequencies, components.Option{Value: string(fr), Label: i18n.T(ctx, fr.Key())})
	}
	// Four empty rows after those typed, so a grade or two more can be added without JS.
	for i, r := range append(f.Rates, make([]plans.RateForm, 4)...) {
		v.Rates = append(v.Rates, pages.RateRow{For: r.For, Amount: r.Amount,
			ForError: v.Errors["rate_for."+strconv.Itoa(i)], AmountError: v.Errors["rate_amount."+strconv.Itoa(i)]})
	}
	if classes, err := h.students.Classes(ctx); err == nil {
		v.Classes = classes
	}
	return v
}

// planForm reads a plan's form: the rates' rows pair rate_for and rate_amount in order.
func planForm(r *http.Request) plans.Form {
	v := r.PostForm
	f := plans.Form{Name: v.Get("name"), Code: v.Get("code"), ItemName: v.Get("item_name"), AccountCode: v.Get("account_code"),
		Amount: v.Get("amount"), Penalty: v.Get("penalty_amount"), Frequency: v.Get("frequency"), From: v.Get("from"),
		To: v.Get("to"), DueDay: v.Get("due_day"), ExpiryDays: v.Get("expiry_days"), Instalments: v.Get("instalments")}
	fors, amounts := v["rate_for"], v["rate_amount"]
	for i := range max(len(fors), len(amounts)) {
		var row plans.RateForm
		if i < len(fors) {
			row.For = fors[i]
		}
		if i < len(amounts) {
			row.Amount = amounts[i]
		}
		f.Rates = append(f.Rates, row)
	}
	return f
}

// jobStateLabel words an apply job's state.
func jobStateLabel(ctx context.Context, state string) string {
	return i18n.T(ctx, "plans.state."+state)
}

// problemText words an apply item's problem: a catalogue key, or the service's words.
func planProblemText(ctx context.Context, p string) string {
	if i18n.Has(p) {
		return i18n.T(ctx, p)
	}
	return i18n.T(ctx, "corrections.problem.refused", p)
}
