package uploads

import (
	"context"
	"fmt"
	"time"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/store"
)

// The audit actions of uploads: each is written by the runner's step that makes the
// change (Receive, Analyse, Commit, Retry, Discard), once the change is made. The rows an
// upload sends are audited per call by changes.Writer.
const (
	ActionReceive = "upload.receive"
	ActionAnalyse = "upload.analyse"
	ActionCommit  = "upload.commit"
	ActionRetry   = "upload.retry"
	ActionDiscard = "upload.discard"
)

// audit records that actor took step action on upload j: the upload's kind and file name
// in the detail (the log names the upload by it), its id as the target. The step has
// happened, so a failure here is logged, not returned.
func (r *Runner) audit(ctx context.Context, actor auth.Actor, action string, j store.UploadJob) {
	detail := fmt.Sprintf("%s %q", j.Kind, j.FileName)
	if action == ActionReceive {
		detail = fmt.Sprintf("%s %q, %d bytes, sha256 %s", j.Kind, j.FileName, j.FileSize, j.FileSHA256)
	}
	e := store.AuditEntry{Actor: actor.Username, ActorRole: string(actor.Role), IP: actor.IP, Action: action, Target: j.ID,
		Outcome: "ok", Detail: detail}
	// Even when the person's request is gone: the step was taken.
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := r.db.AppendAudit(actx, e); err != nil {
		r.log.Error("append audit entry", "action", action, "upload", j.ID, "err", err)
	}
}
