package web

import (
	"net/http"
	"slices"
	"strings"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/corrections"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/views/pages"
)

// leaveView reads what leaving does to the {nis} student's bills (the day their status
// began), with chosen ticked (nil: every one).
func (h *Handler) leaveView(r *http.Request, chosen []string) (pages.LeaveView, corrections.LeavePlan, error) {
	ctx := r.Context()
	s := studentFrom(r)
	v := pages.LeaveView{Student: studentInfo(s), Standing: standingInfo(s), Chosen: map[string]bool{}, Errors: map[string]string{}}
	plan, err := h.corrections.Leaving(ctx, s.NIS, leaveDay(s))
	if err != nil {
		return v, plan, err
	}
	item := func(b billing.Bill) pages.CancelItem {
		return pages.CancelItem{ID: b.ComponentID, Name: b.Name, AccountCode: b.AccountCode, Amount: b.Amount, Due: b.Due}
	}
	for _, b := range plan.Cancel {
		v.Cancel = append(v.Cancel, item(b))
		v.Chosen[b.ComponentID] = chosen == nil || slices.Contains(chosen, b.ComponentID)
	}
	for _, b := range plan.Kept {
		v.Kept = append(v.Kept, item(b))
	}
	v.CancelAmount, v.KeptAmount = plan.CancelAmount, plan.KeptAmount
	v.Reason = i18n.T(ctx, "leavers.reason_default", i18n.T(ctx, "students.status."+v.Standing.Status), i18n.From(ctx).Day(v.Standing.On))
	return v, plan, nil
}

// previewLeave is the preview of cancelling a former student's unpaid bills due after the
// day they left: each ticked, those due before kept as arrears, and the reason.
func (h *Handler) previewLeave(w http.ResponseWriter, r *http.Request) {
	if !h.leaverKnown(w, r) {
		return
	}
	v, _, err := h.leaveView(r, nil)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	h.page(w, r, http.StatusOK, pages.StudentLeave(v), pages.StudentLeaveCard(v))
}

// confirmLeave cancels the ticked bills as a correction job (each read at the service
// before it is sent again after a lost answer; one paid meanwhile is kept and said).
func (h *Handler) confirmLeave(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	s := studentFrom(r)
	if err := r.ParseForm(); err != nil {
		h.renderError(w, r, http.StatusBadRequest, "")
		return
	}
	if !h.leaverKnown(w, r) {
		return
	}
	ids := r.PostForm["id"]
	v, plan, err := h.leaveView(r, ids)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	v.Reason = strings.TrimSpace(r.PostForm.Get("reason"))
	var probs problem.List
	corrections.CheckReason(&probs, v.Reason)
	req := plan.Request(ids, v.Reason)
	if req == nil && len(plan.Cancel) > 0 {
		probs.Add("id", "leavers.err.none_chosen")
	}
	if len(probs) > 0 || req == nil {
		v.Errors = problemMessages(ctx, probs)
		h.page(w, r, http.StatusUnprocessableEntity, pages.StudentLeave(v), pages.StudentLeaveCard(v))
		return
	}
	req.Actor = h.actor(r)
	id, err := h.corrections.Submit(ctx, *req)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	h.addFlash(w, r, "success", i18n.T(ctx, "leavers.started", len(req.Items), i18n.Rupiah(req.AmountBefore), s.Name))
	h.redirect(w, r, correctionURL(id))
}

// leaverKnown reports whether the {nis} student left on a known day; when not, the person
// is sent to their page (still active) or to the status form (no day), with why.
func (h *Handler) leaverKnown(w http.ResponseWriter, r *http.Request) bool {
	ctx := r.Context()
	s := studentFrom(r)
	switch {
	case !standingInfo(s).Former():
		h.addFlash(w, r, "error", i18n.T(ctx, "leavers.not_former"))
		h.redirect(w, r, studentURL(s.NIS))
	case leaveDay(s).IsZero():
		h.addFlash(w, r, "error", i18n.T(ctx, "leavers.no_day"))
		h.redirect(w, r, studentURL(s.NIS)+"/status")
	default:
		return true
	}
	return false
}
