package web

import (
	"context"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/plans"
	"github.com/sekolah/portal/views/pages"
)

// maxJobProblems bounds the components a job's page lists as left alone or refused.
const maxJobProblems = 300

// planJobFrom loads the {job} apply job of the plan of the route; false (after answering
// 404) when it is none of that plan's.
func (h *Handler) planJobFrom(w http.ResponseWriter, r *http.Request) (plans.Job, bool) {
	j, err := h.plans.Job(r.Context(), chi.URLParam(r, "job"))
	switch {
	case isNotFound(err) || err == nil && j.PlanID != planFrom(r).ID:
		h.notFound(w, r)
		return j, false
	case err != nil:
		h.serverError(w, r, err)
		return j, false
	}
	return j, true
}

// showPlanJob is an apply job's page; HTMX polls it while the job runs.
func (h *Handler) showPlanJob(w http.ResponseWriter, r *http.Request) {
	j, ok := h.planJobFrom(w, r)
	if !ok {
		return
	}
	v, err := h.planJobView(r.Context(), planFrom(r), j)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	h.page(w, r, http.StatusOK, pages.PlanJob(v), pages.PlanJobBody(v))
}

// planJobView shapes an apply job's page: progress, the components left alone or refused
// with why, the undo once it ended.
func (h *Handler) planJobView(ctx context.Context, p plans.Plan, j plans.Job) (pages.PlanJobView, error) {
	v := pages.PlanJobView{URL: planJobURL(p.ID, j.ID), PlanURL: planURL(p.ID), PlanName: p.Name, State: j.State,
		StateLabel: jobStateLabel(ctx, j.State), Selection: j.Selection, Actor: h.staffNames(ctx)(j.Actor), CreatedAt: j.CreatedAt,
		FinishedAt: j.FinishedAt, WaitingSince: j.WaitingSince, Running: plans.Running(j.State), Total: j.Total, Done: j.Done,
		Skipped: j.Skipped, Failed: j.Failed, Existing: j.Existing, Recognised: j.Recognised, Amount: j.Amount,
		Discount: j.Discount, CanWrite: can(ctx, auth.WriteBilling), UndoErrors: map[string]string{}}
	v.Percent = 100
	if j.Total > 0 {
		v.Percent = (j.Done + j.Skipped + j.Failed) * 100 / j.Total
	}
	items, err := h.plans.Items(ctx, j.ID, "skipped", "failed")
	if err != nil {
		return v, err
	}
	for _, it := range items {
		if it.Problem == plans.Waived {
			v.Waived++
		}
	}
	for i, it := range items {
		if i == maxJobProblems {
			v.MoreProblems = len(items) - i
			break
		}
		v.Problems = append(v.Problems, pages.JobProblem{NIS: it.NIS, Student: it.StudentName, Name: it.Name, State: it.State,
			Why: planProblemText(ctx, it.Problem)})
		if it.State == "failed" && len(it.Problem) > len(plans.ProblemUnsent) && it.Problem[:len(plans.ProblemUnsent)] == plans.ProblemUnsent {
			v.Retry = !v.Running
		}
	}
	switch {
	case j.UndoJob != "" && !isClaim(j.UndoJob):
		v.UndoneURL = correctionURL(j.UndoJob)
	case plans.Undoable(j):
		u, err := h.plans.Undo(ctx, j)
		if err != nil {
			return v, err
		}
		v.Undo = len(u.Cancel) > 0
		v.UndoCount, v.UndoPaid, v.UndoSplit, v.UndoAmount = len(u.Cancel), len(u.Paid), u.Split, u.Amount
		v.UndoReason = i18n.T(ctx, "plans.undo.reason_default", p.Name)
	}
	return v, nil
}

// isClaim reports an undo being made (not yet a correction job).
func isClaim(undo string) bool { return len(undo) > 6 && undo[:6] == "claim:" }
