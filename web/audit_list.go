package web

import (
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/views/components"
	"github.com/sekolah/portal/views/pages"
)

// auditOutcomes are the outcomes the filter offers.
var auditOutcomes = []string{"ok", "failed", "locked", "disabled", "denied", "unknown"}

const auditPageSize = 50

// listAudit shows the audit log, filtered by person, action, outcome and date range
// (days in the portal's time zone). The default range is the last 30 days.
func (h *Handler) listAudit(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	loc := h.cfg.Location
	today := h.now().In(loc)
	f := pages.AuditFilter{
		Actor: q.Get("actor"), Action: q.Get("action"), Outcome: q.Get("outcome"),
		From: q.Get("from"), To: q.Get("to"),
	}
	if f.From == "" {
		f.From = today.AddDate(0, 0, -30).Format(time.DateOnly)
	}
	if f.To == "" {
		f.To = today.Format(time.DateOnly)
	}
	from, errFrom := time.ParseInLocation(time.DateOnly, f.From, loc)
	to, errTo := time.ParseInLocation(time.DateOnly, f.To, loc)
	switch {
	case errFrom != nil || errTo != nil:
		f.Error = i18n.T(ctx, "form.invalid_date")
	case to.Before(from):
		f.Error = i18n.T(ctx, "audit.bad_dates")
	}
	offset := offsetParam(r)

	v := pages.AuditView{Filter: f, Outcomes: auditOutcomes}
	var err error
	if v.Actors, err = h.db.AuditActors(ctx); err != nil {
		h.serverError(w, r, err)
		return
	}
	if v.Actions, err = h.db.AuditActions(ctx); err != nil {
		h.serverError(w, r, err)
		return
	}
	var entries []store.AuditEntry
	total := 0
	if f.Error == "" {
		entries, total, err = h.db.ListAudit(ctx, store.AuditFilter{
			Actor: f.Actor, Action: f.Action, Outcome: f.Outcome,
			From: from.UTC(), To: to.AddDate(0, 0, 1).UTC(), Offset: offset, Limit: auditPageSize,
		})
		if err != nil {
			h.serverError(w, r, err)
			return
		}
	}
	for _, e := range entries {
		v.Rows = append(v.Rows, pages.AuditRow{
			At: e.At, Actor: e.Actor, ActorRole: e.ActorRole, Action: e.Action, Target: e.Target,
			Outcome: e.Outcome, Detail: e.Detail, IP: e.IP, UpstreamStatus: e.UpstreamStatus, UpstreamDesc: e.UpstreamDesc,
		})
	}
	v.Pager = components.Pager{
		Offset: offset, Limit: auditPageSize, Shown: len(v.Rows), Total: total, Target: "#audit-results",
		URL: func(off int) string {
			u := url.Values{}
			for k, val := range map[string]string{"actor": f.Actor, "action": f.Action, "outcome": f.Outcome, "from": f.From, "to": f.To} {
				if val != "" {
					u.Set(k, val)
				}
			}
			if off > 0 {
				u.Set("offset", strconv.Itoa(off))
			}
			return "/audit?" + u.Encode()
		},
	}
	h.page(w, r, http.StatusOK, pages.Audit(v), pages.AuditResults(v))
}
