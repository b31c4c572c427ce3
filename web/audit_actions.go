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
