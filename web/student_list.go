package web

import (
	"net/http"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/views/components"
	"github.com/sekolah/portal/views/pages"
)

const studentsPageSize = 50

// listStudents is the roster: search by NIS or name, filter by class, paged.
func (h *Handler) listStudents(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	f := pages.StudentsFilter{Query: q.Get("q"), Class: q.Get("class")}
	offset := offsetParam(r)
	classes := h.knownClasses(ctx)
	list, total, err := h.db.ListStudents(ctx, store.StudentFilter{Query: f.Query, Class: f.Class, Offset: offset, Limit: studentsPageSize,
		ClassOrder: classes})
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	v := pages.StudentsView{Filter: f, Sync: h.syncView(ctx), Now: h.now(), CanWrite: can(ctx, auth.WriteBilling), Classes: classes}
	for _, s := range list {
		v.Rows = append(v.Rows, pages.StudentRow{
			NIS: s.NIS, Name: s.Name, Class: s.Description, Phone: s.Phone, Source: s.Source,
			HasTotals: s.HasTotals(), Outstanding: s.Outstanding, Overdue: s.OverdueCount, SyncedAt: s.SyncedAt,
		})
	}
	v.Pager = components.Pager{
		Offset: offset, Limit: studentsPageSize, Shown: len(v.Rows), Total: total, Target: "#students-results",
		URL: func(off int) string { return studentsURL(f, off) },
	}
	h.page(w, r, http.StatusOK, pages.Students(v), pages.StudentsResults(v))
}
