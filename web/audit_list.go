package web

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/sekolah/portal/internal/audit"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/views/components"
	"github.com/sekolah/portal/views/pages"
)

const auditPageSize = 50

// listAudit shows the audit log, filtered by person, action, outcome and date range
// (days in the portal's time zone). The default range is the last 30 days.
func (h *Handler) listAudit(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	loc := h.clk.Zone()
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
	offset := offsetParam(r, auditPageSize)

	v := pages.AuditView{Filter: f}
	for _, o := range audit.Outcomes() {
		v.Outcomes = append(v.Outcomes, string(o))
	}
	actors, err := h.auditLog.Actors(ctx)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	var entries []audit.Stored
	total := 0
	if f.Error == "" {
		entries, total, err = h.auditLog.List(ctx, audit.Filter{
			Actor: f.Actor, Action: f.Action, Outcome: audit.Outcome(f.Outcome),
			From: from.UTC(), To: to.AddDate(0, 0, 1).UTC(), Offset: offset, Limit: auditPageSize,
		})
		if err != nil {
			h.serverError(w, r, err)
			return
		}
	}
	names := h.loadAuditNames(ctx, entries)
	p := i18n.From(ctx)
	for _, a := range actors {
		v.Actors = append(v.Actors, pages.AuditChoice{Value: a, Label: audit.ActorName(p, a, names)})
		// A machine's other names select the same entries: the filter shows its one choice.
		if audit.MachineOf(a) != audit.NotMachine && audit.MachineOf(a) == audit.MachineOf(f.Actor) {
			v.Filter.Actor = a
		}
	}
	slices.SortStableFunc(v.Actors, func(x, y pages.AuditChoice) int { return i18n.CompareNatural(x.Label, y.Label) })
	for _, a := range audit.Actions() {
		v.Actions = append(v.Actions, pages.AuditChoice{Value: a.Code, Label: a.Phrase(p, audit.OK)})
	}
	slices.SortStableFunc(v.Actions, func(x, y pages.AuditChoice) int { return i18n.CompareNatural(x.Label, y.Label) })
	for _, e := range entries {
		v.Rows = append(v.Rows, auditRow(ctx, e, names))
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
