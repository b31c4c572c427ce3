package web

import (
	"context"
	"net/http"
	"strings"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/plans"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/views/pages"
)

// maxPreviewLines bounds the students a preview lists (the totals are of all of them).
const maxPreviewLines = 400

// applyForm reads the apply form: classes, grades and NIS (repeatable), the months and
// the two choices.
func applyForm(r *http.Request) plans.SelectionForm {
	v := r.PostForm
	return plans.SelectionForm{Classes: v["class"], Grades: v["grade"], NIS: v["nis"], From: v.Get("from"), To: v.Get("to"),
		Earlier: v.Get("earlier") != "", Recreate: v.Get("recreate") != ""}
}

// applyPreview checks the apply form and computes its preview; the problems are the
// form's.
func (h *Handler) applyPreview(ctx context.Context, p plans.Plan, f plans.SelectionForm) (plans.Preview, problem.List, error) {
	sel, probs := f.Parse(p)
	if len(probs) > 0 {
		return plans.Preview{}, probs, nil
	}
	return h.plans.Preview(ctx, p, sel)
}

// applyAgain shows the plan's page with the apply form as typed and its problems (422).
func (h *Handler) applyAgain(w http.ResponseWriter, r *http.Request, p plans.Plan, f plans.SelectionForm, probs problem.List) {
	ctx := r.Context()
	form := pages.ApplyForm{NIS: strings.Join(f.NIS, " "), From: f.From, To: f.To, Earlier: f.Earlier, Recreate: f.Recreate,
		Errors: problemMessages(ctx, probs)}
	v, err := h.planView(ctx, p, form, f.Classes, f.Grades)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	h.render(w, r, http.StatusUnprocessableEntity, pages.Plan(v))
}

// applyPlan answers the apply form with the preview: students × periods, what exists,
// who gets a discount, who is left out and why, and the confirmation.
func (h *Handler) applyPlan(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if err := r.ParseForm(); err != nil {
		h.renderError(w, r, http.StatusBadRequest, "")
		return
	}
	p := planFrom(r)
	f := applyForm(r)
	pv, probs, err := h.applyPreview(ctx, p, f)
	switch {
	case err != nil:
		h.serverError(w, r, err)
	case len(probs) > 0:
		h.applyAgain(w, r, p, f, probs)
	default:
		h.render(w, r, http.StatusOK, pages.PlanPreview(h.previewView(ctx, pv, f)))
	}
}

// previewView words a preview, with the form's values for its confirmation.
func (h *Handler) previewView(ctx context.Context, pv plans.Preview, f plans.SelectionForm) pages.PreviewView {
	v := pages.PreviewView{PlanURL: planURL(pv.Plan.ID), PlanName: pv.Plan.Name, Selection: pv.Sel.Text(),
		Months: monthsLabel(ctx, pv.Sel.From, pv.Sel.To), Students: pv.Students(), Create: pv.Create, Exists: pv.Exists,
		Waived: pv.Waived, Cancelled: pv.Cancelled, Before: pv.Before, Inactive: pv.Inactive, Amount: pv.Amount, Full: pv.Full,
		Off: pv.Off, Fingerprint: pv.Fingerprint}
	for _, c := range f.Classes {
		v.Hidden = append(v.Hidden, pages.Hidden{Name: "class", Value: c})
	}
	for _, g := range f.Grades {
		v.Hidden = append(v.Hidden, pages.Hidden{Name: "grade", Value: g})
	}
	if len(pv.Sel.NIS) > 0 {
		v.Hidden = append(v.Hidden, pages.Hidden{Name: "nis", Value: strings.Join(pv.Sel.NIS, " ")})
	}
	v.Hidden = append(v.Hidden, pages.Hidden{Name: "from", Value: pv.Sel.From.String()}, pages.Hidden{Name: "to", Value: pv.Sel.To.String()})
	if f.Earlier {
		v.Hidden = append(v.Hidden, pages.Hidden{Name: "earlier", Value: "1"})
	}
	if f.Recreate {
		v.Hidden = append(v.Hidden, pages.Hidden{Name: "recreate", Value: "1"})
	}
	pr := i18n.From(ctx)
	for i, ln := range pv.Lines {
		if i == maxPreviewLines {
			v.More = len(pv.Lines) - i
			break
		}
		l := pages.PreviewLine{NIS: ln.Student.NIS, Name: ln.Student.Name, Class: ln.Student.Description, URL: studentURL(ln.Student.NIS),
			Price: ln.Price, Create: ln.Create, Exists: ln.Exists, Waived: ln.Waived, Cancelled: ln.Cancelled, Before: ln.Before,
			Amount: ln.Amount}
		if !ln.Status.Active() {
			l.Status = i18n.T(ctx, ln.Status.Key())
			if !ln.Student.StatusOn.IsZero() {
				l.Status += " · " + pr.Day(ln.Student.StatusOn)
			}
		}
		if ln.Rate != (plans.Rate{}) {
			l.RateLabel = rateLabel(ctx, ln.Rate)
		}
		if ln.Discount != nil {
			l.Discount = ln.Discount.Text(pr) + " · " + ln.Discount.ReasonText(pr)
		}
		switch ln.StartBy {
		case plans.JoinedRoster:
			l.Start = i18n.T(ctx, "plans.preview.joined_roster", monthLabel(ctx, ln.Start), pr.Day(h.clk.DayOf(ln.Student.CreatedAt)))
		case plans.JoinedFirst:
			l.Start = i18n.T(ctx, "plans.preview.joined_first", monthLabel(ctx, ln.Start))
		}
		v.Lines = append(v.Lines, l)
	}
	return v
}
