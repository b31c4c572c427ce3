package metrics

import (
	"context"
	"math"
	"sort"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sekolah/portal/internal/ledger"
)

// Sources are what a scrape reads from the database the instances share: the same on
// every instance. A nil field is not read.
type Sources struct {
	// Ledger is the ledger's sync state, its size and its payment callbacks.
	Ledger LedgerReader
	// Applications counts the public form's applications that wait, by state (new: for
	// the Intake; sending; pending: held for staff).
	Applications func(ctx context.Context) (map[string]int, error)
}

// LedgerReader is what the metrics read of the ledger (a *ledger.Ledger).
type LedgerReader interface {
	Freshness(ctx context.Context) (ledger.Freshness, error)
	Counts(ctx context.Context) (components, students int, err error)
	CallbackTally(ctx context.Context) (ledger.CallbackTally, error)
}

// The figures read at each scrape.
var (
	descDatabaseUp = prometheus.NewDesc("portal_database_up",
		"1 when this scrape read the shared state from the database; 0 when a read failed (its figures are missing from this scrape).", nil, nil)

	descLastSync = prometheus.NewDesc("portal_ledger_last_sync_success_timestamp_seconds",
		"When the last sync of the ledger that ended well started (Unix time; 0: never): the ledger holds what the service held then.", nil, nil)
	descSyncLag = prometheus.NewDesc("portal_ledger_sync_lag_seconds",
		"Seconds since the last sync of the ledger that ended well started (+Inf: never).", nil, nil)
	descLastReconcile = prometheus.NewDesc("portal_ledger_last_reconcile_success_timestamp_seconds",
		"When the last full reconcile of the ledger that ended well started (Unix time; 0: never).", nil, nil)
	descSyncFailing = prometheus.NewDesc("portal_ledger_sync_failing",
		"1 when the ledger's last sync run failed (the figures are as of the last success).", nil, nil)
	descFilling = prometheus.NewDesc("portal_ledger_filling",
		"1 while the ledger's first fill has not ended (its figures are partial).", nil, nil)
	descComponents = prometheus.NewDesc("portal_ledger_components",
		"Bill components the ledger holds (deleted ones left out).", nil, nil)
	descStudents = prometheus.NewDesc("portal_ledger_students",
		"Students in the roster.", nil, nil)

	descCallbacksReceived = prometheus.NewDesc("portal_payment_callbacks_received_total",
		"Payment callbacks stored (one per reference), ever.", nil, nil)
	descCallbackDeliveries = prometheus.NewDesc("portal_payment_callback_deliveries_total",
		"Deliveries of stored payment callbacks, the service's resends of a reference included.", nil, nil)
	descCallbacksConfirmed = prometheus.NewDesc("portal_payment_callbacks_confirmed_total",
		"Payment callbacks the service confirmed (their payment is in the ledger).", nil, nil)
	descCallbacksDisputed = prometheus.NewDesc("portal_payment_callbacks_disputed_total",
		"Payment callbacks that disagreed with the service's records (listed on Settings → Data).", nil, nil)
	descCallbacksOtherBody = prometheus.NewDesc("portal_payment_callbacks_other_body_total",
		"Deliveries of a stored reference with another body than the first (kept aside, never applied).", nil, nil)
	descCallbacksUnconfirmed = prometheus.NewDesc("portal_payment_callbacks_unconfirmed",
		"Payment callbacks stored and waiting for the service's confirmation now (in no figure until then).", nil, nil)
	descUnconfirmedRupiah = prometheus.NewDesc("portal_payment_callbacks_unconfirmed_rupiah",
		"What the unconfirmed payment callbacks announce, in rupiah.", nil, nil)
	descUnconfirmedSince = prometheus.NewDesc("portal_payment_callbacks_unconfirmed_oldest_timestamp_seconds",
		"When the oldest unconfirmed payment callback arrived (Unix time; 0: none waits).", nil, nil)
	descLastCallback = prometheus.NewDesc("portal_payment_callback_last_received_timestamp_seconds",
		"When the last payment callback was delivered (Unix time; 0: never).", nil, nil)

	descJobsQueued = prometheus.NewDesc("portal_jobs_queued",
		"Jobs to run that no instance holds: they wait their turn.", []string{"kind"}, nil)
	descJobsRunning = prometheus.NewDesc("portal_jobs_running",
		"Jobs an instance runs now (it holds their lease).", []string{"kind"}, nil)
	descJobsWaiting = prometheus.NewDesc("portal_jobs_waiting_for_service",
		"Jobs waiting for a payment service that stopped answering.", []string{"kind"}, nil)

	descApplications = prometheus.NewDesc("portal_registration_applications_waiting",
		"The public form's applications waiting, by state: new (for the Intake), sending, pending (held for staff).", []string{"state"}, nil)
)

// stateCollector reads the shared state for one scrape, within its context. It is an
// unchecked collector (Describe sends nothing): it is registered once per scrape.
type stateCollector struct {
	m   *Metrics
	ctx context.Context
}

func (c *stateCollector) Describe(chan<- *prometheus.Desc) {}

func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	m := c.m
	m.mu.Lock()
	src := m.sources
	m.mu.Unlock()
	ok := true
	failed := func(what string, err error) {
		ok = false
		m.log.Warn("metrics: read "+what, "err", err)
	}
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter := func(d *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v)
	}
	if l := src.Ledger; l != nil {
		if f, err := l.Freshness(c.ctx); err != nil {
			failed("the ledger's sync state", err)
		} else {
			gauge(descLastSync, unix(f.SyncedAt))
			lag := math.Inf(1)
			if !f.SyncedAt.IsZero() {
				lag = max(m.clock.Now().Sub(f.SyncedAt), 0).Seconds()
			}
			gauge(descSyncLag, lag)
			gauge(descLastReconcile, unix(f.ReconciledAt))
			gauge(descSyncFailing, flag(f.Failing()))
			gauge(descFilling, flag(f.Filling()))
		}
		if components, students, err := l.Counts(c.ctx); err != nil {
			failed("the ledger's counts", err)
		} else {
			gauge(descComponents, float64(components))
			gauge(descStudents, float64(students))
		}
		if t, err := l.CallbackTally(c.ctx); err != nil {
			failed("the payment callbacks", err)
		} else {
			counter(descCallbacksReceived, float64(t.Received()))
			counter(descCallbackDeliveries, float64(t.Deliveries))
			counter(descCallbacksConfirmed, float64(t.ByStatus[ledger.CallbackConfirmed]))
			counter(descCallbacksDisputed, float64(t.ByStatus[ledger.CallbackDisputed]))
			counter(descCallbacksOtherBody, float64(t.OtherBodies))
			gauge(descCallbacksUnconfirmed, float64(t.ByStatus[ledger.CallbackUnconfirmed]))
			gauge(descUnconfirmedRupiah, float64(t.UnconfirmedTotal))
			gauge(descUnconfirmedSince, unix(t.UnconfirmedSince))
			gauge(descLastCallback, unix(t.LastReceived))
		}
	}
	names, census := m.census()
	for _, kind := range names {
		n, err := census[kind](c.ctx)
		if err != nil {
			failed("the "+kind+" jobs", err)
			continue
		}
		gauge(descJobsQueued, float64(n.Queued), kind)
		gauge(descJobsRunning, float64(n.Running), kind)
		gauge(descJobsWaiting, float64(n.WaitingForService), kind)
	}
	if src.Applications != nil {
		if byState, err := src.Applications(c.ctx); err != nil {
			failed("the public form's applications", err)
		} else {
			states := make([]string, 0, len(byState))
			for s := range byState {
				states = append(states, s)
			}
			sort.Strings(states)
			for _, s := range states {
				gauge(descApplications, float64(byState[s]), s)
			}
		}
	}
	gauge(descDatabaseUp, flag(ok))
}

// unix is t in Unix seconds; 0 for the zero time (never).
func unix(t time.Time) float64 {
	if t.IsZero() {
		return 0
	}
	return float64(t.UnixNano()) / 1e9
}

func flag(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
