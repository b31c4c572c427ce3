package web

import (
	"net/http"

	"github.com/sekolah/portal/internal/audit"
	"github.com/sekolah/portal/views/viewctx"
)

// record appends e, an entry of one of the actions the pages make themselves, for the
// signed-in person from the request's address. A failure to write it is logged loudly;
// the action itself already happened and must not be reported as failed.
func (h *Handler) record(r *http.Request, e audit.Entry) {
	p, _ := viewctx.CurrentPerson(r.Context())
	e.Actor = audit.Actor{Username: p.Username, Role: string(p.Role), IP: h.clientIP(r)}
	if err := h.auditLog.Record(r.Context(), e); err != nil {
		h.log.Error("append audit entry", "action", e.Action.Code, "target", e.Target, "err", err)
	}
}

// audit appends an entry of the action whose code is given, for the signed-in person:
// the door of the handlers that still name their actions by code (the upload pages and
// the data page's reconcile, whose actions are declared in audit_actions.go) until the
// parts that make those actions record them themselves.
func (h *Handler) audit(r *http.Request, code, target, outcome, detail string) {
	a := audit.Lookup(code)
	if a == nil {
		a = &audit.Action{Code: code} // recorded all the same, and logged as malformed
	}
	e := a.With()
	e.Target, e.Outcome, e.Detail = target, audit.Outcome(outcome), detail
	h.record(r, e)
}
