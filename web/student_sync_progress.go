package web

import (
	"context"
	"net/http"
	"strings"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/views/pages"
)

// syncView shapes the ledger's sync for the students page: a request waiting, the run
// under way, or how the last one ended. It is read from the database, so every instance
// shows the same.
func (h *Handler) syncView(ctx context.Context) (pages.SyncView, error) {
	p := i18n.From(ctx)
	f, err := h.ledger.Freshness(ctx)
	if err != nil {
		return pages.SyncView{}, err
	}
	v := pages.SyncView{State: pages.SyncIdle, Permille: -1}
	kind := func(k string) string { return p.T("ledger.run." + k) }
	switch {
	case f.Running():
		v.State, v.Kind = pages.SyncRunning, f.LastKind
		v.Text = p.T("students.sync.running", kind(f.LastKind), p.DateTime(f.LastStart))
		if f.LastKind == ledger.RunFill {
			fr := h.freshness(ctx, f, "")
			v.Text, v.Permille = fr.Text, fr.Permille
		}
	case !f.SyncAsked.IsZero() || !f.ReconcileAsked.IsZero():
		v.State = pages.SyncWaiting
		v.Text = p.T("students.sync.waiting")
	}
	last, ok, err := h.ledger.LastRun(ctx, f.LastKind, true)
	if err != nil {
		return pages.SyncView{}, err
	}
	if v.State != pages.SyncIdle || !ok {
		return v, nil
	}
	v.Kind = last.Kind
	if last.OK {
		v.State = pages.SyncDone
		v.Text = p.T("students.sync.done", kind(last.Kind), h.clock(ctx, last.End), runChanges(ctx, last))
	} else {
		v.State = pages.SyncFailed
		v.Text = p.T("students.sync.failed", kind(last.Kind), h.clock(ctx, last.End), p.T("ledger.problem."+last.Problem))
	}
	if last.AskedBy != "" {
		v.Text += " " + p.T("students.sync.asked_by", h.staffNames(ctx)(last.AskedBy))
	}
	return v, nil
}

// runChanges words what a run changed ("3 new bills, 1 student added or changed").
func runChanges(ctx context.Context, r ledger.Run) string {
	p := i18n.From(ctx)
	var parts []string
	add := func(n int, key string) {
		if n > 0 {
			parts = append(parts, p.T("ledger.changed."+key, i18n.Number(int64(n))))
		}
	}
	add(r.NewComponents, "new")
	add(r.ChangedComponents, "changed")
	add(r.Students, "students")
	add(r.Removed, "removed")
	add(r.LookedUp, "looked_up")
	add(r.Corrected, "corrected")
	add(r.Callbacks, "callbacks")
	if len(parts) == 0 {
		return p.T("ledger.changed.none")
	}
	return strings.Join(parts, ", ")
}

// syncProgress is the sync's state HTMX polls while a sync waits or runs; a plain
// browser gets it on a page. When a poll finds the run ended it tells the page to reload
// the roster.
func (h *Handler) syncProgress(w http.ResponseWriter, r *http.Request) {
	v, err := h.syncView(r.Context())
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	if isPartial(r) && finished(v) {
		w.Header().Set("HX-Trigger", "students-synced")
	}
	h.page(w, r, http.StatusOK, pages.SyncPage(v), pages.SyncStatus(v))
}

// finished reports a run that has ended, so the roster on the page may be out of date.
func finished(v pages.SyncView) bool {
	return v.State == pages.SyncDone || v.State == pages.SyncFailed
}
