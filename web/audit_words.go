package web

import (
	"context"
	"net/url"

	"github.com/sekolah/portal/internal/audit"
	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/students"
	"github.com/sekolah/portal/views/pages"
)

// The audit log's rows: internal/audit words each entry in the reader's language; here
// its subject gets its page's address and the people their names. The codes, ids,
// hashes and addresses stay behind "Details".

// auditNames are the staff and the students a page of entries names, read once.
type auditNames struct {
	users    map[string]auth.User
	students map[string]students.Student
}

// StaffName is a member of staff's name by username.
func (n auditNames) StaffName(username string) string { return n.users[username].DisplayName }

// StudentName is the roster's name of a student (for entries older than their names).
func (n auditNames) StudentName(nis string) string { return n.students[nis].Name }

// loadAuditNames reads the staff, and the students the entries name without their name,
// in two queries.
func (h *Handler) loadAuditNames(ctx context.Context, entries []audit.Stored) auditNames {
	n := auditNames{users: map[string]auth.User{}}
	if us, err := h.auth.Users(ctx); err == nil {
		for _, u := range us {
			n.users[u.Username] = u
		}
	} else {
		h.log.Warn("audit: read staff names", "err", err)
	}
	var nis []string
	for _, e := range entries {
		if s := audit.StudentOf(e); s != "" && e.Args.Get(audit.KeyName) == "" {
			nis = append(nis, s)
		}
	}
	if len(nis) > 0 {
		if ss, err := h.students.ByNIS(ctx, nis); err == nil {
			n.students = ss
		} else {
			h.log.Warn("audit: read student names", "err", err)
		}
	}
	return n
}

// staffNames reads the staff once and returns how a page names who did something: the
// person's name, "Sistem"/"the portal" for the portal's own work, never a bare username
// where a name is known.
func (h *Handler) staffNames(ctx context.Context) func(username string) string {
	n := h.loadAuditNames(ctx, nil)
	p := i18n.From(ctx)
	return func(username string) string { return audit.ActorName(p, username, n) }
}

// auditRow is one entry as the log page shows it.
func auditRow(ctx context.Context, e audit.Stored, names auditNames) pages.AuditRow {
	w := audit.Word(i18n.From(ctx), e, names)
	row := pages.AuditRow{
		At: e.At, Actor: w.Actor, ActorRole: e.ActorRole, Outcome: string(e.Outcome),
		Words: w.Phrase, Subject: w.Subject.Text, Extras: w.Figures,
		Code: e.Code, Target: e.Target, Detail: e.Detail, IP: e.IP, Username: e.Actor,
		UpstreamStatus: e.UpstreamStatus, UpstreamDesc: e.UpstreamDesc,
	}
	if w.Machine || !i18n.Has("role."+row.ActorRole) {
		row.ActorRole = "" // the portal itself, the service, the public form: no staff role
	}
	if w.Upload != "" {
		row.UploadURL = uploadURL(w.Upload)
	}
	key := w.Subject.Key
	switch w.Subject.About {
	case audit.AboutStudent:
		if key != "" {
			row.SubjectURL = studentURL(key)
		}
	case audit.AboutStaff:
		if u, ok := names.users[key]; ok {
			row.SubjectURL = "/staff/" + url.PathEscape(u.ID)
		}
	case audit.AboutUpload:
		if key != "" {
			row.SubjectURL = uploadURL(key)
		}
	case audit.AboutReport:
		row.Subject, row.SubjectURL = reportName(ctx, key)
	}
	return row
}

// reportName names the report an export entry's target (its address) is of, with the file
// format, and links to the report with the same filters.
func reportName(ctx context.Context, target string) (string, string) {
	u, err := url.Parse(target)
	if err != nil {
		return target, ""
	}
	key := map[string]string{
		"/reports/payments": "reports.tab.payments", "/reports/outstanding": "reports.tab.outstanding",
		"/reports/statement": "reports.tab.statement", "/reports/accounts": "reports.tab.accounts",
		"/reports/discounts": "reports.tab.discounts",
	}[u.Path]
	if key == "" {
		return u.Path, ""
	}
	q := u.Query()
	format := q.Get("format")
	q.Del("format")
	u.RawQuery = q.Encode()
	name := i18n.T(ctx, key)
	if f := exportFormatLabel(ctx, format); f != "" {
		name += " (" + f + ")"
	}
	return name, u.String()
}
