package web

import (
	"net/http"
	"slices"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/internal/students"
	"github.com/sekolah/portal/views/components"
	"github.com/sekolah/portal/views/pages"
)

const studentsPageSize = 50

// listStudents is the roster: search by NIS or name, filter by class, paged, with what
// each student owes today (the ledger's) and the state of the sync.
func (h *Handler) listStudents(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	f := pages.StudentsFilter{Query: q.Get("q"), Class: q.Get("class"), Status: listStatus(q.Get("status"))}
	if q.Get("status") == "" && f.Query != "" {
		f.Status = listAll // a search finds a former student too, unless a status is chosen
	}
	offset := offsetParam(r, studentsPageSize)
	v := pages.StudentsView{Filter: f, Now: h.now(), CanWrite: can(ctx, auth.WriteBilling)}
	var ps problem.List
	if !students.CheckSearch(&ps, "q", f.Query) {
		// Said beside the search, what was typed cut to what may be searched for.
		v.Classes = h.knownClasses(ctx)
		v.Filter.Query, v.SearchError = cutRunes(f.Query, students.MaxSearchLen), problemMessages(ctx, ps)["q"]
		var err error
		if v.Sync, err = h.syncView(ctx); err != nil {
			h.serverError(w, r, err)
			return
		}
		h.page(w, r, http.StatusUnprocessableEntity, pages.Students(v), pages.StudentsResults(v))
		return
	}
	page, err := h.students.List(ctx, students.Query{Search: f.Query, Class: f.Class, Statuses: listStatuses(f.Status),
		Offset: offset, Limit: studentsPageSize})
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	list, total := page.Rows, page.Total
	if q.Get("open") == "1" && total == 1 && offset == 0 && len(list) == 1 {
		// A search from the dashboard that finds one student opens them.
		h.redirect(w, r, studentURL(list[0].NIS))
		return
	}
	v.Classes = page.Classes
	if v.Sync, err = h.syncView(ctx); err != nil {
		h.serverError(w, r, err)
		return
	}
	// What each student on the page owes today, from the ledger; while its first fill
	// runs the totals would be partial, so they are not shown.
	fresh, err := h.ledger.Freshness(ctx)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	nis := make([]string, len(list))
	for i, s := range list {
		nis[i] = s.NIS
	}
	totals, err := h.ledger.StudentTotals(ctx, nis)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	for _, s := range list {
		t := totals[s.NIS]
		v.Rows = append(v.Rows, pages.StudentRow{
			NIS: s.NIS, Name: s.Name, Class: s.Description, Phone: s.Phone, Source: s.Source,
			HasTotals: !fresh.Filling(), Outstanding: t.Outstanding, Overdue: t.Overdue, SyncedAt: s.SyncedAt,
			Standing: standingInfo(s),
		})
	}
	v.Pager = components.Pager{
		Offset: offset, Limit: studentsPageSize, Shown: len(v.Rows), Total: total, Target: "#students-results",
		URL: func(off int) string { return studentsURL(f, off) },
	}
	h.page(w, r, http.StatusOK, pages.Students(v), pages.StudentsResults(v))
}

// The students list's status filter: active students by default, every one, the former
// ones (graduated, moved, left), or one standing.
const (
	listActive = "active"
	listAll    = "all"
	listFormer = "former"
)

// listStatus reads the status filter; anything unknown is the default (active).
func listStatus(s string) string {
	switch st := students.Status(s); {
	case s == listAll, s == listFormer:
		return s
	case slices.Contains(students.Statuses, st):
		return s
	}
	return listActive
}

// listStatuses are the standings the filter keeps (none: every student).
func listStatuses(f string) []students.Status {
	switch f {
	case listAll:
		return nil
	case listFormer:
		var out []students.Status
		for _, st := range students.Statuses {
			if !st.Active() {
				out = append(out, st)
			}
		}
		return out
	}
	return []students.Status{students.Status(f)}
}
