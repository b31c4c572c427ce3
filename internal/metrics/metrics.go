// Package metrics is the portal's metrics in Prometheus' text format, served on an address
// of its own (PORTAL_METRICS_ADDR) so an operator can alert on "payments stopped arriving"
// without reading logs. It is the one package that imports the Prometheus client
// (internal/archtest keeps it so): the domain packages offer narrow hooks of their own,
// and this package implements them or reads through them.
//
// Two kinds of figures:
//
//   - Per instance: what this process saw happen, counted as it happens. The requests it
//     served (web's middleware calls Request), its calls to the payment service
//     (billing.Config.Observe is BillingCall), the callbacks it refused and the
//     confirmations it recorded, the sync runs it made (ledger.Observer, from Ledger),
//     the items its job engines sent and decided (jobs.Watcher, from Jobs); and the Go
//     runtime's and the process's own. Sum them over instances.
//   - The same on every instance: what the database the instances share holds, read when
//     the metrics are scraped (Read's Sources): the ledger's sync state and size, the
//     payment callbacks by where they stand, the job queues, the public form's
//     applications waiting. Take one instance's value (max), never the sum.
//
// docs/ARCHITECTURE.md ("Metrics") lists every metric with its kind.
package metrics

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/jobs"
)

// Path is where the metrics are served on their own address.
const Path = "/metrics"

// scrapeBudget bounds the database reads of one scrape: a scrape that would take longer
// answers with what it has (and portal_database_up 0).
const scrapeBudget = 10 * time.Second

// Config builds the metrics.
type Config struct {
	// Clock is the portal's clock (required): the sync's lag is now less its last success.
	Clock clock.Clock
	// Log receives the failures of a scrape's reads (nil: slog's default).
	Log *slog.Logger
}

// Metrics is one portal instance's metrics: its registry (not Prometheus' global one), the
// hooks the parts call, and what is read from the database at each scrape. The hooks of
// a nil *Metrics do nothing, so a portal without PORTAL_METRICS_ADDR pays nothing.
type Metrics struct {
	clock clock.Clock
	log   *slog.Logger
	reg   *prometheus.Registry

	requests     *prometheus.HistogramVec
	calls        *prometheus.HistogramVec
	retries      *prometheus.CounterVec
	refused      prometheus.Counter
	confirmation *prometheus.HistogramVec
	syncRuns     *prometheus.CounterVec
	syncTook     *prometheus.HistogramVec
	jobItems     *prometheus.CounterVec

	mu      sync.Mutex
	sources Sources
	kinds   map[string]func(context.Context) (jobs.Census, error)
}

// New builds the metrics with the Go runtime's and the process's collectors.
func New(cfg Config) (*Metrics, error) {
	if cfg.Clock.IsZero() {
		return nil, errors.New("metrics: no clock (internal/app's, or clock.System)")
	}
	log := cfg.Log
	if log == nil {
		log = slog.Default()
	}
	m := &Metrics{clock: cfg.Clock, log: log, reg: prometheus.NewRegistry(),
		kinds: map[string]func(context.Context) (jobs.Census, error){}}
	m.requests = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "portal_http_request_duration_seconds",
		Help:    "Requests this instance served, by route pattern, method and status class, and how long each took.",
		Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
	}, []string{"route", "method", "status"})
	m.calls = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "portal_billing_call_duration_seconds",
		Help: "Calls this instance made to the payment service, by the client's method, the last answer's status class " +
			"(none: no answer) and the error's kind (none: it succeeded), and how long each took, retries included.",
		Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 15, 30, 45, 60},
	}, []string{"endpoint", "status", "error"})
	m.retries = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "portal_billing_call_retries_total",
		Help: "Requests this instance sent to the payment service again within a call (after a failure, or with another date of the daily password).",
	}, []string{"endpoint"})
	m.refused = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "portal_payment_callbacks_refused_total",
		Help: "Payment callbacks this instance refused (bad signature or body): nothing of them was stored.",
	})
	m.confirmation = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "portal_payment_callback_confirmation_seconds",
		Help:    "Time from a payment callback's first arrival to the service's answer, recorded by this instance, by outcome (confirmed or disputed).",
		Buckets: []float64{.1, .25, .5, 1, 2, 4, 10, 30, 60, 300, 900, 3600, 4 * 3600},
	}, []string{"status"})
	m.syncRuns = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "portal_ledger_sync_runs_total",
		Help: "The ledger's sync runs this instance made, by kind (fill, incremental, reconcile) and outcome (ok, or why it failed).",
	}, []string{"kind", "outcome"})
	m.syncTook = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "portal_ledger_sync_run_duration_seconds",
		Help:    "How long the ledger's sync runs of this instance took, by kind.",
		Buckets: []float64{.1, .5, 1, 5, 10, 30, 60, 300, 900, 1800, 3600},
	}, []string{"kind"})
	m.jobItems = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "portal_job_items_total",
		Help: "Items of jobs this instance's engines sent (each call, again when sent again) and decided: done, skipped or failed, by job kind.",
	}, []string{"kind", "state"})
	m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.requests, m.calls, m.retries, m.refused, m.confirmation, m.syncRuns, m.syncTook, m.jobItems)
	return m, nil
}

// Handler answers GET /metrics (Path) with the metrics in Prometheus' text format, and
// anything else with 404: it is served on its own address, never beside the pages. Each
// scrape reads the shared state from the database within the scrape's own time.
func (m *Metrics) Handler() http.Handler {
	opts := promhttp.HandlerOpts{ErrorLog: slog.NewLogLogger(m.log.Handler(), slog.LevelWarn), ErrorHandling: promhttp.ContinueOnError}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != Path {
			http.NotFound(w, r)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), scrapeBudget)
		defer cancel()
		state := prometheus.NewRegistry()
		state.MustRegister(&stateCollector{m: m, ctx: ctx})
		promhttp.HandlerFor(prometheus.Gatherers{m.reg, state}, opts).ServeHTTP(w, r)
	})
}

// Read sets what each scrape reads from the database (internal/app hands it the ledger
// and the applications' counts once they are built).
func (m *Metrics) Read(s Sources) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sources = s
}

// Jobs is the Watcher the job runners tell of their kinds and items (internal/app puts it
// in the context the workers start with: jobs.WithWatcher); nil for nil metrics.
func (m *Metrics) Jobs() jobs.Watcher {
	if m == nil {
		return nil
	}
	return jobsWatcher{m}
}

// jobsWatcher is the metrics as a jobs.Watcher.
type jobsWatcher struct{ m *Metrics }

func (w jobsWatcher) Kind(kind string, census func(context.Context) (jobs.Census, error)) {
	w.m.mu.Lock()
	defer w.m.mu.Unlock()
	w.m.kinds[kind] = census
}

func (w jobsWatcher) Items(kind string, state jobs.State, n int) {
	w.m.jobItems.WithLabelValues(kind, string(state)).Add(float64(n))
}

// census is the job kinds' censuses, by kind's name.
func (m *Metrics) census() (names []string, census map[string]func(context.Context) (jobs.Census, error)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	census = make(map[string]func(context.Context) (jobs.Census, error), len(m.kinds))
	for k, c := range m.kinds {
		names = append(names, k)
		census[k] = c
	}
	sort.Strings(names)
	return names, census
}
