package web

import (
	"context"
	"net/url"
	"strconv"
	"strings"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/changes"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/registration"
	"github.com/sekolah/portal/internal/school"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/views/pages"
)

// The audit log in words: each entry says what happened in the reader's language ("Pembayaran
// di loket dicatat — Budi Santoso (NIS 24250081), 2 tagihan, Rp 1.350.000"), names the
// person who did it and links to the student or the upload. The codes, ids, hashes and
// addresses stay behind "Details". Entries older than their arguments (store.AuditEntry.Args)
// are worded from their action and target, the student's name taken from the roster.

// auditPeople are what the words need from the portal's own records.
type auditPeople struct {
	users    map[string]store.User
	students map[string]store.Student
}

// loadAuditPeople reads the staff and the students the entries name, in two queries.
func (h *Handler) loadAuditPeople(ctx context.Context, entries []store.AuditEntry) auditPeople {
	ap := auditPeople{users: map[string]store.User{}}
	if us, err := h.db.ListUsers(ctx); err == nil {
		for _, u := range us {
			ap.users[u.Username] = u
		}
	} else {
		h.log.Warn("audit: read staff names", "err", err)
	}
	var nis []string
	for _, e := range entries {
		if n := auditNIS(e); n != "" && e.Args["name"] == "" {
			nis = append(nis, n)
		}
	}
	if len(nis) > 0 {
		if ss, err := h.db.StudentsByNIS(ctx, nis); err == nil {
			ap.students = ss
		} else {
			h.log.Warn("audit: read student names", "err", err)
		}
	}
	return ap
}

// actorName is how the log names who acted: the staff member's name, the portal itself
// for its own work, the public form for registrations from it.
func (ap auditPeople) actorName(ctx context.Context, username string) string {
	switch username {
	case auth.SystemActor.Username, ledger.ActorSync:
		return i18n.T(ctx, "audit.actor.system")
	case ledger.ActorService:
		return i18n.T(ctx, "audit.actor.service")
	case "public":
		return i18n.T(ctx, "audit.actor.public")
	}
	if u, ok := ap.users[username]; ok && u.DisplayName != "" {
		return u.DisplayName
	}
	return username
}

// staffNames reads the staff once and returns how a page names who did something: the
// person's name, "Sistem"/"the portal" for the portal's own work, never a bare username
// where a name is known.
func (h *Handler) staffNames(ctx context.Context) func(username string) string {
	ap := h.loadAuditPeople(ctx, nil)
	return func(username string) string { return ap.actorName(ctx, username) }
}

// isStudentAction: the action is about students, its target a NIS (or a list of them).
func isStudentAction(action string) bool {
	switch action {
	case ledger.ActionCallback, ledger.ActionReconcileComponent, ledger.ActionReconcileStudent:
		return true
	}
	return strings.HasPrefix(action, "upstream.") || strings.HasPrefix(action, "followup.")
}

// auditNIS is the (first) student an entry is about, or "".
func auditNIS(e store.AuditEntry) string {
	if !isStudentAction(e.Action) {
		return ""
	}
	if n := e.Args["nis"]; n != "" {
		return n
	}
	first, _, _ := strings.Cut(e.Target, ",")
	return strings.TrimSpace(first)
}

// actionWords is the phrase of an action with an outcome, or the code when the catalogue
// has none.
func actionWords(ctx context.Context, action, outcome string) string {
	key := "audit.act." + action
	if outcome != "ok" {
		key = "audit.try." + action
	}
	if i18n.Has(key) {
		return i18n.T(ctx, key)
	}
	if i18n.Has("audit.act." + action) {
		return i18n.T(ctx, "audit.act."+action)
	}
	return action
}

// auditRow words one entry.
func auditRow(ctx context.Context, e store.AuditEntry, ap auditPeople) pages.AuditRow {
	p := i18n.From(ctx)
	row := pages.AuditRow{
		At: e.At, Actor: ap.actorName(ctx, e.Actor), ActorRole: e.ActorRole, Outcome: e.Outcome,
		Words: actionWords(ctx, e.Action, e.Outcome),
		Code:  e.Action, Target: e.Target, Detail: e.Detail, IP: e.IP, Username: e.Actor,
		UpstreamStatus: e.UpstreamStatus, UpstreamDesc: e.UpstreamDesc,
	}
	switch e.Actor {
	case auth.SystemActor.Username, ledger.ActorSync, ledger.ActorService, "public":
		row.ActorRole = "" // the portal itself, the service, the public form: no staff role
	}
	if !i18n.Has("role." + row.ActorRole) {
		row.ActorRole = ""
	}
	a := e.Args
	count := func(key string) (int, bool) {
		n, err := strconv.Atoi(a[key])
		return n, err == nil
	}
	money := func() {
		if v, err := strconv.ParseInt(a["total"], 10, 64); err == nil {
			row.Extras = append(row.Extras, i18n.Rupiah(v))
		}
	}
	switch {
	case isStudentAction(e.Action):
		nis := auditNIS(e)
		if nis == "" {
			break
		}
		name := a["name"]
		if name == "" {
			name = ap.students[nis].Name
		}
		if name != "" {
			row.Subject = p.T("audit.student", name, nis)
		} else {
			row.Subject = p.T("audit.student_nis", nis)
		}
		if n, ok := count("students"); ok && n > 1 {
			row.Subject = p.T("audit.students_more", row.Subject, n-1)
		} else if e.Action != changes.ActionStudentDelete || e.Outcome != "ok" {
			row.SubjectURL = studentURL(nis) // a deleted student has no page
		}
		if up := a["upload"]; up != "" {
			row.UploadURL = uploadURL(up)
		}
		if item := a["item"]; item != "" {
			row.Extras = append(row.Extras, item)
		}
		if n, ok := count("count"); ok {
			row.Extras = append(row.Extras, p.T("audit.items", n))
		}
		if n, ok := count("overdue"); ok { // a follow-up: the overdue items it named
			row.Extras = append(row.Extras, p.T("followups.audit_overdue", n))
		}
		money()
		if reason := a["reason"]; reason != "" {
			row.Extras = append(row.Extras, p.T("audit.reason", reason))
		}
		if ref := a["ref"]; ref != "" {
			row.Extras = append(row.Extras, p.T("audit.receipt", ref))
		}
	case strings.HasPrefix(e.Action, "upload."):
		row.Subject, row.SubjectURL = uploadFileName(e.Detail), uploadURL(e.Target)
		if row.Subject == "" {
			row.Subject = p.T("audit.show_details")
		}
	case e.Action == actionReportExport:
		row.Subject, row.SubjectURL = reportName(ctx, e.Target)
	case strings.HasPrefix(e.Action, "staff.") || strings.HasPrefix(e.Action, "session."):
		user := a["user"]
		if user == "" {
			user = e.Target
		}
		row.Subject = ap.actorName(ctx, user)
		if u, ok := ap.users[user]; ok {
			row.SubjectURL = "/staff/" + url.PathEscape(u.ID)
		}
		if role := a["role"]; role != "" {
			if from := a["from"]; from != "" {
				row.Extras = append(row.Extras, p.T("audit.role_change", p.T("role."+from), p.T("role."+role)))
			} else {
				row.Extras = append(row.Extras, p.T("role."+role))
			}
		}
	case e.Action == auth.ActionSignIn:
		if e.Outcome != "ok" && e.Target != "" {
			row.Subject = p.T("audit.typed_username", e.Target)
		}
	case strings.HasPrefix(e.Action, "settings.fee_template."):
		row.Subject = e.Target
		if n, ok := count("count"); ok {
			row.Extras = append(row.Extras, p.T("audit.lines", n))
		}
		money()
	case e.Action == registration.ActionPublicSettings:
		if a["enabled"] == "true" {
			row.Subject = p.T("audit.enabled")
		} else if a["enabled"] == "false" {
			row.Subject = p.T("audit.disabled")
		}
		if a["name"] != "" {
			row.Extras = append(row.Extras, a["name"])
		}
		if a["cap"] != "" {
			row.Extras = append(row.Extras, p.T("registration.settings.audit_cap", a["cap"]))
		}
	case strings.HasPrefix(e.Action, "registration.application."):
		if a["nis"] != "" {
			row.Subject = p.T("audit.student", a["name"], a["nis"])
		}
		if ref := a["ref"]; ref != "" {
			row.Extras = append(row.Extras, p.T("applications.audit_ref", ref))
		}
		money()
		if reason := a["reason"]; reason != "" {
			row.Extras = append(row.Extras, p.T("audit.reason", reason))
		}
	case e.Action == school.ActionProfile:
		row.Subject = a["name"]
		if pat := a["pattern"]; pat != "" {
			row.Extras = append(row.Extras, p.T("audit.pattern", pat))
		}
	case e.Action == school.ActionLogo:
		if f := a["file"]; f != "" {
			row.Subject = p.T("audit.file", f)
		}
	}
	return row
}

// uploadFileName reads the file name from an upload entry's detail (`kind "name", …`).
func uploadFileName(detail string) string {
	_, rest, ok := strings.Cut(detail, " ")
	if !ok {
		return ""
	}
	quoted, err := strconv.QuotedPrefix(rest)
	if err != nil {
		return ""
	}
	name, err := strconv.Unquote(quoted)
	if err != nil {
		return ""
	}
	return name
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
