package web

import (
	"net/http"

	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/views/viewctx"
)

// audit appends an entry for an action of the signed-in person, with its arguments when
// given (what the log words it with; see store.AuditEntry.Args). A failure to write it is
// logged loudly; the action itself already happened and must not be reported as failed.
func (h *Handler) audit(r *http.Request, action, target, outcome, detail string, args ...store.AuditArgs) {
	p, _ := viewctx.CurrentPerson(r.Context())
	e := store.AuditEntry{
		Actor: p.Username, ActorRole: string(p.Role), Action: action, Target: target,
		Outcome: outcome, Detail: detail, IP: h.clientIP(r),
	}
	if len(args) > 0 {
		e.Args = args[0]
	}
	if err := h.db.AppendAudit(r.Context(), e); err != nil {
		h.log.Error("append audit entry", "action", action, "target", target, "err", err)
	}
}
