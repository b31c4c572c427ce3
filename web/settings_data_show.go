package web

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/views/pages"
)

// callbackPath is the route the billing service posts payment callbacks to.
const callbackPath = "/hooks/payments"

// showDataSettings is the admins' page about the ledger: what it holds and how fresh,
// the last incremental sync and reconcile (when, how long, what changed), the payment
// callbacks and whether they arrive, and "reconcile now".
func (h *Handler) showDataSettings(w http.ResponseWriter, r *http.Request) {
	v, err := h.dataSettingsView(r)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	h.page(w, r, http.StatusOK, pages.DataSettings(v), pages.DataSettingsLive(v))
}

func (h *Handler) dataSettingsView(r *http.Request) (pages.DataSettingsView, error) {
	ctx := r.Context()
	p := i18n.From(ctx)
	f, err := h.ledger.Freshness(ctx)
	if err != nil {
		return pages.DataSettingsView{}, err
	}
	v := pages.DataSettingsView{Fresh: h.freshness(ctx, f, "")}
	if v.Sync, err = h.syncView(ctx); err != nil {
		return v, err
	}
	comps, studs, err := h.ledger.Counts(ctx)
	if err != nil {
		return v, err
	}
	v.Components, v.Students = i18n.Number(int64(comps)), i18n.Number(int64(studs))
	every := p.T("settings.data.span_seconds", int(h.sync.Every()/time.Second))
	if h.sync.Every()%time.Minute == 0 {
		every = p.T("settings.data.span_minutes", int(h.sync.Every()/time.Minute))
	}
	if hour := h.sync.ReconcileHour(); hour >= 0 {
		v.Schedule = p.T("settings.data.every", every, fmt.Sprintf("%02d", hour), h.clk.Zone().String())
	} else {
		v.Schedule = p.T("settings.data.every_no_nightly", every)
	}
	last := func(kind string) (*pages.DataRun, error) {
		run, ok, err := h.ledger.LastRun(ctx, kind, false)
		if err != nil || !ok {
			return nil, err
		}
		d := h.dataRun(ctx, run, f)
		return &d, nil
	}
	if v.LastIncremental, err = last(ledger.RunIncremental); err != nil {
		return v, err
	}
	if v.LastReconcile, err = last(ledger.RunReconcile); err != nil {
		return v, err
	}
	if v.Fill, err = last(ledger.RunFill); err != nil {
		return v, err
	}
	runs, err := h.ledger.Runs(ctx, "", 15)
	if err != nil {
		return v, err
	}
	for _, run := range runs {
		v.Recent = append(v.Recent, h.dataRun(ctx, run, f))
	}
	if !f.ReconcileAsked.IsZero() {
		v.ReconcileWaiting = p.T("settings.data.reconcile_waiting", p.Ago(h.now().Sub(f.ReconcileAsked)))
	}

	v.CallbackURL, v.CallbackURLNote = h.callbackURL(r)
	week := h.now().AddDate(0, 0, -7)
	cs, err := h.ledger.CallbackStats(ctx, week)
	if err != nil {
		return v, err
	}
	if cs.Last.IsZero() {
		v.Callbacks = p.T("settings.data.callbacks_never")
	} else {
		v.Callbacks = p.T("settings.data.callbacks_week", i18n.Number(int64(cs.Received)), p.DateTime(cs.Last))
	}
	if cs.Received == 0 && cs.Payments > 0 && !f.Filling() {
		v.CallbackHint = p.T("settings.data.callbacks_hint", i18n.Number(int64(cs.Payments)))
	}
	if err := h.callbackTrust(ctx, &v, cs); err != nil {
		return v, err
	}
	return v, nil
}

// dataRun words one run for the data page.
func (h *Handler) dataRun(ctx context.Context, run ledger.Run, f ledger.Freshness) pages.DataRun {
	p := i18n.From(ctx)
	d := pages.DataRun{Kind: run.Kind, Label: p.T("ledger.run." + run.Kind), When: p.DateTime(run.Start), OK: run.OK, Instance: run.Instance}
	// A run without an end is running only while the state says the sync runs it; one
	// whose instance died mid-run is over.
	running := run.End.IsZero() && f.Running() && f.LastStart.Equal(run.Start)
	switch {
	case running:
		d.Running = true
		d.Outcome = p.T("settings.data.running", p.DateTime(run.Start))
	case run.OK:
		d.Outcome = p.T("settings.data.ok")
		d.Changes = runChanges(ctx, run) + " · " + p.T("ledger.changed.calls", i18n.Number(int64(run.Calls)))
		d.Took = took(ctx, run.Took())
	default:
		problem := run.Problem
		if problem == "" {
			problem = ledger.ProblemStopped
		}
		d.Outcome = p.T("settings.data.failed", p.T("ledger.problem."+problem))
		if run.Changed() > 0 {
			d.Changes = runChanges(ctx, run)
		}
		d.Took = took(ctx, run.Took())
	}
	if run.AskedBy != "" {
		d.AskedBy = p.T("settings.data.asked_by", h.staffNames(ctx)(run.AskedBy))
	}
	return d
}

// took words a run's length: "0,4 dtk", "3 mnt 05 dtk".
func took(ctx context.Context, d time.Duration) string {
	if d <= 0 {
		return ""
	}
	p := i18n.From(ctx)
	if d < 50*time.Millisecond {
		return p.T("words.duration.under_second") // never "0,0 dtk"
	}
	if d < time.Minute {
		s := fmt.Sprintf("%.1f", d.Seconds())
		if p.Lang != i18n.English {
			s = strings.Replace(s, ".", ",", 1)
		}
		return p.T("settings.data.seconds", s)
	}
	return p.T("settings.data.minutes", int(d/time.Minute), fmt.Sprintf("%02d", int(d%time.Minute/time.Second)))
}

// callbackURL is the address the operator must post payment callbacks to, from the
// configuration only (a Host header is whatever the request says); without
// PORTAL_PUBLIC_URL the page says how to make it.
func (h *Handler) callbackURL(r *http.Request) (url, note string) {
	if h.cfg.PublicURL != "" {
		return h.cfg.PublicURL + callbackPath, ""
	}
	return "", i18n.T(r.Context(), "settings.data.callback_url_unset")
}
