package web

import (
	"net/http"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/component"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/views/pages"
)

// createComponents checks every row with the service's rules, then sends the filled rows
// in one batch (all or none).
func (h *Handler) createComponents(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if err := r.ParseForm(); err != nil {
		h.renderError(w, r, http.StatusBadRequest, "")
		return
	}
	nis := studentFrom(r).NIS
	rows := readComponentRows(r.PostForm, rowCount(r.PostForm))
	f := h.componentsForm(r, rows)
	plan := component.PlanRows(nis, rows, h.cfg.AccountCodes)
	for i, probs := range plan.Problems {
		f.Rows[i].Errors = problemMessages(ctx, probs)
	}
	status := http.StatusUnprocessableEntity
	switch {
	case len(plan.Problems) > 0:
	case len(plan.Inputs) == 0:
		f.General = i18n.T(ctx, "students.components.none")
	default:
		uctx, cancel := h.upstreamCtx(ctx)
		bills, err := h.writer.CreateComponents(uctx, h.actor(r), plan.Inputs, "form")
		cancel()
		if err == nil {
			h.addFlash(w, r, "success", i18n.T(ctx, "students.components.created_ok", max(len(bills), len(plan.Inputs)), f.Student.Name))
			h.redirect(w, r, studentURL(nis))
			return
		}
		h.log.Warn("create components", "nis", nis, "err", err)
		if !h.componentsRefused(r, &f, plan, err) {
			f.General = h.upstreamMessage(ctx, err, true)
			status = upstreamStatus(err)
		}
	}
	h.page(w, r, status, pages.StudentComponentsNew(f), pages.ComponentsFormCard(f))
}

// componentsRefused puts each item the service rejected beside its row and field, and
// reports whether it could.
func (h *Handler) componentsRefused(r *http.Request, f *pages.ComponentsForm, plan component.Plan, err error) bool {
	apiErr, ok := billing.AsAPIError(err)
	if !ok || !apiErr.Validation() {
		return false
	}
	placed := false
	for _, it := range apiErr.Problems() {
		col, ok := component.FieldOf(it.Field)
		if !ok || it.Index < 0 || it.Index >= len(plan.Rows) {
			continue
		}
		f.Rows[plan.Rows[it.Index]].Errors[col] = i18n.T(r.Context(), "students.err.service", it.Message)
		placed = true
	}
	if !placed {
		return false
	}
	f.General = i18n.T(r.Context(), "students.components.refused")
	return true
}
