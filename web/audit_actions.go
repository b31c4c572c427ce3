package web

import "github.com/sekolah/portal/internal/audit"

// The actions the pages make themselves: a roster sync or a reconcile asked for, a report
// downloaded (who took which figures out of the portal; its subject the report's address,
// which reportName names).
var (
	auditStudentsSync = audit.Register(audit.Action{Code: "students.sync"})
	auditReportExport = audit.Register(audit.Action{Code: "report.export", About: audit.AboutReport,
		Needs: []audit.Key{audit.KeyFile, audit.KeyFormat}})
	_ = audit.Register(audit.Action{Code: actionReconcileAsk})
)

// The upload pages' actions, each about the upload (its id the target, the file's kind
// and name the detail). The upload handlers record them through Handler.audit by code;
// they move to the upload runner with the entries themselves (issue 25, point 8).
var _ = []*audit.Action{
	audit.Register(audit.Action{Code: "upload.receive", About: audit.AboutUpload}),
	audit.Register(audit.Action{Code: "upload.analyse", About: audit.AboutUpload}),
	audit.Register(audit.Action{Code: "upload.commit", About: audit.AboutUpload}),
	audit.Register(audit.Action{Code: "upload.retry", About: audit.AboutUpload}),
	audit.Register(audit.Action{Code: "upload.discard", About: audit.AboutUpload}),
}
