package web

import (
	"net/http"
	"strings"

	"github.com/sekolah/portal/internal/changes"
	"github.com/sekolah/portal/internal/corrections"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/views/pages"
)

// cancelComponents cancels the confirmed components with the reason given (sent as the
// delete's transfer_ref and kept in the audit entry). Paid ones are never sent; a
// timeout says the outcome is unknown and asks to check the student's page.
func (h *Handler) cancelComponents(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if err := r.ParseForm(); err != nil {
		h.renderError(w, r, http.StatusBadRequest, "")
		return
	}
	v, err := h.componentCancelView(r, r.PostForm["id"])
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	v.Reason = strings.TrimSpace(r.PostForm.Get("reason"))
	var probs problem.List
	corrections.CheckReason(&probs, v.Reason)
	status := http.StatusUnprocessableEntity
	switch {
	case len(v.Items) == 0:
		// Nothing left to cancel (all paid meanwhile, or none chosen): the page says so.
	case len(probs) > 0:
		v.Errors = problemMessages(ctx, probs)
	default:
		ids := make([]string, len(v.Items))
		for i, it := range v.Items {
			ids[i] = it.ID
		}
		uctx, cancel := h.upstreamCtx(ctx)
		_, err := h.writer.CancelComponents(uctx, h.actor(r), ids, v.Reason, "form")
		cancel()
		if err == nil {
			h.addFlash(w, r, "success", i18n.T(ctx, "corrections.cancel.done", len(ids), i18n.Rupiah(v.Total), v.Student.Name))
			h.redirect(w, r, v.Back)
			return
		}
		h.log.Warn("cancel components", "nis", v.Student.NIS, "count", len(ids), "err", err)
		v.General, status = h.upstreamMessage(ctx, err, true), upstreamStatus(err)
		if changes.Ambiguous(err) {
			status = http.StatusGatewayTimeout
		} else {
			// Refused: perhaps one was paid at a bank since the page was read; say which.
			var paid []string
			for _, it := range v.Items {
				if st := h.freshState(r, it.ID); st.ComponentID != "" && corrections.Refusal(st) != "" {
					paid = append(paid, it.Name)
				}
			}
			if len(paid) > 0 {
				v.General = i18n.T(ctx, "corrections.cancel.paid_meanwhile", strings.Join(paid, ", "))
			}
		}
	}
	h.page(w, r, status, pages.ComponentCancel(v), pages.ComponentCancelCard(v))
}
