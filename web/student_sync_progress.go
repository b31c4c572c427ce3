package web

import (
	"context"
	"net/http"

	"github.com/sekolah/portal/internal/students"
	"github.com/sekolah/portal/views/pages"
)

// syncView shapes the sync job's progress for the page, its error in plain words.
func (h *Handler) syncView(ctx context.Context) pages.SyncView {
	p := h.syncer.Progress()
	v := pages.SyncView{
		State: string(p.State), Phase: string(p.Phase), Percent: p.Percent(), By: p.By,
		StartedAt: p.StartedAt, FinishedAt: p.FinishedAt, BillsRead: p.BillsRead, Students: p.Students,
		ToFetch: p.ToFetch, Fetched: p.Fetched, Added: p.Added, Refreshed: p.Refreshed,
		Removed: p.Removed, Failures: p.Failures,
	}
	if p.Err != nil {
		v.Error = h.upstreamMessage(ctx, p.Err, false)
	}
	return v
}

// syncProgress is the progress partial HTMX polls; a plain browser gets it on a page.
// When a poll finds the job finished it tells the page to reload the roster.
func (h *Handler) syncProgress(w http.ResponseWriter, r *http.Request) {
	v := h.syncView(r.Context())
	if isPartial(r) && finished(v) {
		w.Header().Set("HX-Trigger", "students-synced")
	}
	h.page(w, r, http.StatusOK, pages.SyncPage(v), pages.SyncStatus(v))
}

// finished reports a job that has ended, so the roster on the page may be out of date.
func finished(v pages.SyncView) bool {
	return v.State == string(students.SyncDone) || v.State == string(students.SyncFailed)
}
