package web

import (
	"errors"
	"net/http"
	"strings"

	"github.com/sekolah/portal/internal/corrections"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/plans"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/views/pages"
)

// undoPlanJob cancels, as a correction job, the components an apply made that are still
// unpaid; the paid ones are kept and listed. An apply is undone once.
func (h *Handler) undoPlanJob(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if err := r.ParseForm(); err != nil {
		h.renderError(w, r, http.StatusBadRequest, "")
		return
	}
	p := planFrom(r)
	j, ok := h.planJobFrom(w, r)
	if !ok {
		return
	}
	if !plans.Undoable(j) {
		h.addFlash(w, r, "error", i18n.T(ctx, "corrections.undo.not_possible"))
		h.redirect(w, r, planJobURL(p.ID, j.ID))
		return
	}
	reason := strings.TrimSpace(r.PostForm.Get("reason"))
	var probs problem.List
	corrections.CheckReason(&probs, reason)
	if len(probs) > 0 {
		v, err := h.planJobView(ctx, p, j)
		if err != nil {
			h.serverError(w, r, err)
			return
		}
		v.UndoReason, v.UndoErrors = reason, problemMessages(ctx, probs)
		h.render(w, r, http.StatusUnprocessableEntity, pages.PlanJob(v))
		return
	}
	id, err := h.plans.UndoApply(ctx, h.actor(r), p, j, reason, planJobURL(p.ID, j.ID))
	if errors.Is(err, plans.ErrUndone) {
		h.addFlash(w, r, "error", i18n.T(ctx, "corrections.undo.not_possible"))
		h.redirect(w, r, planJobURL(p.ID, j.ID))
		return
	} else if err != nil {
		h.serverError(w, r, err)
		return
	}
	h.addFlash(w, r, "success", i18n.T(ctx, "plans.undo.started"))
	h.redirect(w, r, correctionURL(id))
}
