package web

import (
	"net/http"

	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/views/viewctx"
)

// audit appends an entry for an action of the signed-in person. A failure to write it is
// logged loudly; the action itself already happened and must not be reported as failed.
func (h *Handler) audit(r *http.Request, action, target, outcome, detail string) {
	p, _ := viewctx.CurrentPerson(r.Context())
	e := store.AuditEntry{
		Actor: p.Username, ActorRole: string(p.Role), Action: action, Target: target,
		Outcome: outcome, Detail: detail, IP: h.clientIP(r),
	}
	if err := h.db.AppendAudit(r.Context(), e); err != nil {
		h.log.Error("append audit entry", "action", action, "target", target, "err", err)
	}
}
