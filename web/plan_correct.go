package web

import (
	"context"
	"net/http"
	"strings"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/corrections"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/plans"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/views/pages"
)

// maxFixRows bounds the components a correction's preview lists.
const maxFixRows = 300

// fixView words what correcting components would do: each one's fields old → new, or its
// cancel.
func fixView(ctx context.Context, r plans.Reprice) pages.FixView {
	v := pages.FixView{Update: len(r.Update), Cancel: len(r.Cancel), Paid: r.Paid, Unchanged: r.Unchanged, Split: r.Split,
		AmountBefore: r.AmountBefore, AmountAfter: r.AmountAfter, CancelAmt: r.CancelAmount, Fingerprint: r.Fingerprint,
		Errors: map[string]string{}}
	p := i18n.From(ctx)
	for _, f := range append(append([]plans.Fix(nil), r.Update...), r.Cancel...) {
		if len(v.Rows) == maxFixRows {
			v.More++
			continue
		}
		row := pages.FixRow{NIS: f.Bill.NIS, Student: f.Bill.StudentName, Name: f.Bill.Name, Cancel: f.Cancel}
		if f.Cancel {
			row.Before, row.After = i18n.Rupiah(f.Bill.Amount), i18n.T(ctx, "corrections.bulk.cancelled")
		} else {
			row.Before, row.After = fixFields(ctx, p, f.Update, f.Bill, false), fixFields(ctx, p, f.Update, f.Bill, true)
		}
		v.Rows = append(v.Rows, row)
	}
	return v
}

// fixFields says the fields an update sets, as they are (after false) or will be.
func fixFields(ctx context.Context, p i18n.Printer, u billing.ComponentUpdate, b billing.Bill, after bool) string {
	var parts []string
	if u.Name != nil {
		parts = append(parts, pick(after, *u.Name, b.Name))
	}
	if u.Amount != nil {
		parts = append(parts, i18n.T(ctx, "plans.fix.amount", pick(after, i18n.Rupiah(*u.Amount), i18n.Rupiah(b.Amount))))
	}
	if u.Penalty != nil {
		parts = append(parts, i18n.T(ctx, "plans.fix.penalty", pick(after, i18n.Rupiah(*u.Penalty), i18n.Rupiah(b.Penalty))))
	}
	if u.Due != nil {
		parts = append(parts, i18n.T(ctx, "plans.fix.due", pick(after, p.Day(*u.Due), p.Day(b.Due))))
	}
	if u.Expiry != nil {
		parts = append(parts, i18n.T(ctx, "plans.fix.expiry", pick(after, p.Day(*u.Expiry), p.Day(b.Expiry))))
	}
	if u.Active != nil {
		parts = append(parts, i18n.T(ctx, "plans.fix.active", pick(after, p.Day(*u.Active), p.Day(b.Active))))
	}
	if u.AccountCode != nil {
		parts = append(parts, pick(after, *u.AccountCode, b.AccountCode))
	}
	return strings.Join(parts, " · ")
}

func pick(after bool, a, b string) string {
	if after {
		return a
	}
	return b
}

// correctPlan offers to correct the unpaid components of the plan after it changed:
// old → new for each, the paid ones never touched.
func (h *Handler) correctPlan(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	p := planFrom(r)
	rp, err := h.plans.Reprice(ctx, []plans.Plan{p}, nil)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, pages.PlanFix(h.planFixView(ctx, p, rp)))
}

func (h *Handler) planFixView(ctx context.Context, p plans.Plan, rp plans.Reprice) pages.FixView {
	v := fixView(ctx, rp)
	v.Title, v.Lead = i18n.T(ctx, "plans.fix.title"), i18n.T(ctx, "plans.fix.lead", p.Name)
	v.BackURL, v.BackLabel, v.Action = planURL(p.ID), p.Name, planURL(p.ID, "/correct/confirm")
	v.Reason = i18n.T(ctx, "plans.fix.reason_default", p.Name)
	return v
}

// confirmCorrectPlan submits the correction when it is what the person saw (else shows
// the new one, 409).
func (h *Handler) confirmCorrectPlan(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if err := r.ParseForm(); err != nil {
		h.renderError(w, r, http.StatusBadRequest, "")
		return
	}
	p := planFrom(r)
	rp, err := h.plans.Reprice(ctx, []plans.Plan{p}, nil)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	h.submitFix(w, r, rp, h.planFixView(ctx, p, rp), planURL(p.ID))
}

// submitFix checks a correction's confirmation (the same fingerprint, a reason when it
// cancels) and submits its jobs; the page of the first one opens.
func (h *Handler) submitFix(w http.ResponseWriter, r *http.Request, rp plans.Reprice, v pages.FixView, back string) {
	ctx := r.Context()
	reason := strings.TrimSpace(r.PostForm.Get("reason"))
	if rp.Fingerprint != r.PostForm.Get("fingerprint") || rp.Count() == 0 {
		v.Changed = rp.Count() > 0
		h.render(w, r, http.StatusConflict, pages.PlanFix(v))
		return
	}
	if len(rp.Cancel) > 0 {
		var probs problem.List
		corrections.CheckReason(&probs, reason)
		if len(probs) > 0 {
			v.Reason, v.Errors = reason, problemMessages(ctx, probs)
			h.render(w, r, http.StatusUnprocessableEntity, pages.PlanFix(v))
			return
		}
	}
	ids, err := h.plans.Correct(ctx, h.actor(r), rp, reason, back)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	h.addFlash(w, r, "success", i18n.T(ctx, "plans.fix.started", rp.Count()))
	h.redirect(w, r, correctionURL(ids[0]))
}

// planCorrectionWords says what a plan's correction job does (its title and summary) and
// leads back to the page it came from.
func planCorrectionWords(ctx context.Context, j corrections.Job) (title, summary, back, backLabel string) {
	back, backLabel = j.Selection, i18n.T(ctx, "plans.correction.back")
	switch {
	case j.Field == plans.FixUndo:
		return i18n.T(ctx, "plans.correction.title_undo"), i18n.T(ctx, "plans.correction.summary_undo", i18n.Rupiah(j.AmountBefore), j.Reason), back, backLabel
	case j.Kind == corrections.KindCancel:
		return i18n.T(ctx, "plans.correction.title_cancel", j.Value),
			i18n.T(ctx, "corrections.job.summary_cancel", j.Total, i18n.Rupiah(j.AmountBefore), j.Reason), back, backLabel
	}
	return i18n.T(ctx, "plans.correction.title_update", j.Value),
		i18n.T(ctx, "plans.correction.summary_update", j.Total, i18n.Rupiah(j.AmountBefore), i18n.Rupiah(j.AmountAfter)), back, backLabel
}
