package uploads

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/sekolah/portal/internal/audit"
	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/i18n"
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
	// ActionAcknowledge: the person committing confirmed the upload's warnings (an amount
	// far below the others, dates read month-first, …); its entry names each kind.
	ActionAcknowledge = "upload.acknowledge"
)

// keyWarnings is the acknowledged kinds of warning, comma-separated (WarnCodes).
const keyWarnings audit.Key = "warnings"

// warningsArg is the acknowledged kinds as an entry keeps them.
func warningsArg(codes []string) audit.Arg { return audit.ArgOf(keyWarnings, strings.Join(codes, ",")) }

// acknowledged words the kinds an entry acknowledged: "jumlah di bawah Rp 1.000, urutan
// tanggal".
var acknowledged = audit.NewFigure("warnings", []audit.Key{keyWarnings}, func(p i18n.Printer, a audit.Args) string {
	v := a.Get(keyWarnings)
	if v == "" {
		return ""
	}
	var words []string
	for _, c := range strings.Split(v, ",") {
		words = append(words, p.T("uploads.ack_short."+c))
	}
	return p.T("uploads.audit_acknowledged", strings.Join(words, ", "))
})

var (
	auditReceive = audit.Register(audit.Action{Code: ActionReceive, About: audit.AboutUpload,
		Keeps: []audit.Key{audit.KeyBytes}, Needs: []audit.Key{audit.KeyUpload, audit.KeyFile}})
	auditAnalyse = audit.Register(audit.Action{Code: ActionAnalyse, About: audit.AboutUpload, Needs: []audit.Key{audit.KeyUpload}})
	auditCommit  = audit.Register(audit.Action{Code: ActionCommit, About: audit.AboutUpload, Needs: []audit.Key{audit.KeyUpload}})
	auditRetry   = audit.Register(audit.Action{Code: ActionRetry, About: audit.AboutUpload, Needs: []audit.Key{audit.KeyUpload}})
	auditDiscard = audit.Register(audit.Action{Code: ActionDiscard, About: audit.AboutUpload, Needs: []audit.Key{audit.KeyUpload}})
	auditAck     = audit.Register(audit.Action{Code: ActionAcknowledge, About: audit.AboutUpload, Shows: []audit.Figure{acknowledged},
		Needs: []audit.Key{audit.KeyUpload, keyWarnings}})
)

// auditActions are the actions by code.
var auditActions = map[string]*audit.Action{
	ActionReceive: auditReceive, ActionAnalyse: auditAnalyse, ActionCommit: auditCommit, ActionRetry: auditRetry,
	ActionDiscard: auditDiscard, ActionAcknowledge: auditAck,
}

// audit records that actor took step action on upload j, with the upload's id and file
// name as its arguments (the log names and links the upload by them); the detail keeps
// the kind and, at receipt, the file's size and hash. The step has happened, so a failure
// here is logged, not returned.
func (r *Runner) audit(ctx context.Context, actor auth.Actor, action string, j store.UploadJob, more ...audit.Arg) {
	args := append([]audit.Arg{audit.Upload(j.ID), audit.File(j.FileName)}, more...)
	detail := fmt.Sprintf("%s %q", j.Kind, j.FileName)
	switch action {
	case ActionReceive:
		args = append(args, audit.Bytes(int(j.FileSize)))
		detail = fmt.Sprintf("%s %q, %d bytes, sha256 %s", j.Kind, j.FileName, j.FileSize, j.FileSHA256)
	case ActionAcknowledge:
		detail = fmt.Sprintf("%s %q: %s", j.Kind, j.FileName, strings.Join(AckCodes(j), ", "))
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
