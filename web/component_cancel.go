package web

import (
	"errors"
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
		res, err := corrections.Cancel(uctx, h.writer, h.actor(r), ids, v.Reason, "form")
		cancel()
		if err == nil {
			n := len(res.Cancelled) + len(res.Already)
			h.addFlash(w, r, "success", i18n.T(ctx, "corrections.cancel.done", n, i18n.Rupiah(v.Total), v.Student.Name))
			h.redirect(w, r, v.Back)
			return
		}
		h.log.Warn("cancel components", "nis", v.Student.NIS, "count", len(ids), "err", err)
		v.General, status = h.upstreamMessage(ctx, err, true), upstreamStatus(err)
		switch {
		case errors.Is(err, corrections.ErrPaidMeanwhile):
			names := make([]string, len(res.Paid))
			for i, b := range res.Paid {
				names[i] = b.Name
			}
			v.General, status = i18n.T(ctx, "corrections.cancel.paid_meanwhile", strings.Join(names, ", ")), http.StatusConflict
		case changes.Ambiguous(err):
			status = http.StatusGatewayTimeout
		}
	}
	h.page(w, r, status, pages.ComponentCancel(v), pages.ComponentCancelCard(v))
}
