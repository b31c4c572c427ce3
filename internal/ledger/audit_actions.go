package ledger

import "github.com/sekolah/portal/internal/audit"

// The ledger's entries in the audit log's vocabulary (walk.go and callback.go write them,
// with their codes): a reconcile, and what it corrected or a callback paid, a callback
// that disagreed with the service or came again with another body, about the student
// their target names. The sync acts as the portal, a callback as the service.
var (
	_ = audit.Register(audit.Action{Code: ActionReconcile})
	_ = audit.Register(audit.Action{Code: ActionReconcileComponent, About: audit.AboutStudent})
	_ = audit.Register(audit.Action{Code: ActionReconcileStudent, About: audit.AboutStudent})
	_ = audit.Register(audit.Action{Code: ActionCallback, About: audit.AboutStudent, Shows: []audit.Figure{audit.Items, audit.Money}})
	_ = audit.Register(audit.Action{Code: ActionCallbackDisputed, About: audit.AboutStudent})
	_ = audit.Register(audit.Action{Code: ActionCallbackResent, About: audit.AboutStudent})
)

func init() {
	audit.RegisterMachine(ActorSync, audit.ThePortal)
	audit.RegisterMachine(ActorService, audit.TheService)
}
