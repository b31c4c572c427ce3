package uploads

import (
	"context"
	"fmt"
	"time"

	"github.com/sekolah/portal/internal/audit"
	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/store"
)

// The audit actions of uploads, in the audit log's vocabulary: each is written by the
// runner's step that makes the change (Receive, Analyse, Commit, Retry, Discard), once the
// change is made, about the upload (its id and file name). The rows an upload sends are
// audited per call by changes.Writer.
const (
	ActionReceive = "upload.receive"
	ActionAnalyse = "upload.analyse"
	ActionCommit  = "upload.commit"
	ActionRetry   = "upload.retry"
	ActionDiscard = "upload.discard"
)

var (
	auditReceive = audit.Register(audit.Action{Code: ActionReceive, About: audit.AboutUpload,
		Keeps: []audit.Key{audit.KeyBytes}, Needs: []audit.Key{audit.KeyUpload, audit.KeyFile}})
	auditAnalyse = audit.Register(audit.Action{Code: ActionAnalyse, About: audit.AboutUpload, Needs: []audit.Key{audit.KeyUpload}})
	auditCommit  = audit.Register(audit.Action{Code: ActionCommit, About: audit.AboutUpload, Needs: []audit.Key{audit.KeyUpload}})
	auditRetry   = audit.Register(audit.Action{Code: ActionRetry, About: audit.AboutUpload, Needs: []audit.Key{audit.KeyUpload}})
	auditDiscard = audit.Register(audit.Action{Code: ActionDiscard, About: audit.AboutUpload, Needs: []audit.Key{audit.KeyUpload}})
)

// auditActions are the actions by code.
var auditActions = map[string]*audit.Action{
	ActionReceive: auditReceive, ActionAnalyse: auditAnalyse, ActionCommit: auditCommit, ActionRetry: auditRetry,
	ActionDiscard: auditDiscard,
}

// audit records that actor took step action on upload j, with the upload's id and file
// name as its arguments (the log names and links the upload by them); the detail keeps
// the kind and, at receipt, the file's size and hash. The step has happened, so a failure
// here is logged, not returned.
func (r *Runner) audit(ctx context.Context, actor auth.Actor, action string, j store.UploadJob) {
	args := []audit.Arg{audit.Upload(j.ID), audit.File(j.FileName)}
	detail := fmt.Sprintf("%s %q", j.Kind, j.FileName)
	if action == ActionReceive {
		args = append(args, audit.Bytes(int(j.FileSize)))
		detail = fmt.Sprintf("%s %q, %d bytes, sha256 %s", j.Kind, j.FileName, j.FileSize, j.FileSHA256)
	}
	e := auditActions[action].With(args...)
	e.Actor = audit.Actor{Username: actor.Username, Role: string(actor.Role), IP: actor.IP}
	e.Outcome, e.Target, e.Detail = audit.OK, j.ID, detail
	// Even when the person's request is gone: the step was taken.
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := (audit.Log{DB: r.db, Clock: r.cfg.Clock}).Record(actx, e); err != nil {
		r.log.Error("append audit entry", "action", action, "upload", j.ID, "err", err)
	}
}
