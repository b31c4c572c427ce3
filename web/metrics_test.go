package web_test

import (
	"context"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/metrics/metricstest"
	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/sandbox"
	"github.com/sekolah/portal/internal/uploads"
	"github.com/sekolah/portal/internal/uploads/sheettest"
)

// TestMetricsOfAPortal scrapes a whole portal's /metrics over HTTP, on its own listener,
// and reads it with Prometheus' parser after what an operator alerts on: pages served
// (by route pattern, never a NIS), a payment callback received and confirmed, a forged
// one refused, and an upload job sent while the payment service fails (faults) and after
// it answers again, with a callback waiting for the service meanwhile.
func TestMetricsOfAPortal(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: billsNow, Metrics: true})
	s := seedBills(t, p)
	scrape := func() metricstest.Scrape { return metricstest.Get(t, p.MetricsURL) }
	start := scrape()
	if start.Value("portal_database_up") != 1 {
		t.Fatalf("the scrape could not read the database: %v", start["portal_database_up"])
	}
	for _, name := range []string{"go_goroutines", "go_memstats_heap_alloc_bytes", "process_cpu_seconds_total",
		"portal_ledger_last_sync_success_timestamp_seconds", "portal_ledger_components"} {
		if !start.Has(name) {
			t.Errorf("no %s", name)
		}
	}
	if got, want := start.Value("portal_ledger_last_sync_success_timestamp_seconds"), float64(billsNow.Unix()); got != want {
		t.Errorf("last sync %v, want %v (the portal's clock)", got, want)
	}
	if lag := start.Value("portal_ledger_sync_lag_seconds"); lag != 0 || start.Value("portal_ledger_sync_failing") != 0 {
		t.Errorf("sync lag %v on a fixed clock right after a sync, failing %v", lag, start.Value("portal_ledger_sync_failing"))
	}
	if n := start.Value("portal_ledger_components"); n != 6 || start.Value("portal_ledger_students") != 3 {
		t.Errorf("ledger holds %v components and %v students, want 6 and 3", n, start.Value("portal_ledger_students"))
	}
	if got := start.Value("portal_ledger_sync_runs_total", "outcome", "ok"); got < 1 {
		t.Errorf("sync runs that ended well: %v", got)
	}

	// The pages' listener does not serve the metrics.
	res, err := http.Get(p.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound || strings.Contains(string(body), "portal_") {
		t.Fatalf("GET /metrics on the pages' address: %d\n%.300s", res.StatusCode, body)
	}

	// A page: counted under its route's pattern, never its path.
	c := p.SignedIn(t, "finance")
	if res := c.Get("/students/2024001/"); res.StatusCode != http.StatusOK {
		t.Fatalf("student page: %d", res.StatusCode)
	}
	c.Get("/no-such-page-2024002")
	after := scrape()
	student := []string{"route", "/students/{nis}", "method", "GET", "status", "2xx"}
	if d := after.Value("portal_http_request_duration_seconds", student...) - start.Value("portal_http_request_duration_seconds", student...); d != 1 {
		t.Errorf("student page requests counted: %v, want 1 (routes %v)", d, after.LabelValues("portal_http_request_duration_seconds", "route"))
	}
	if after.Value("portal_http_request_duration_seconds", "route", "unmatched", "status", "4xx") < 1 {
		t.Errorf("the 404 is not counted as unmatched: %v", after.LabelValues("portal_http_request_duration_seconds", "route"))
	}
	if routes := after.LabelValues("portal_http_request_duration_seconds", "route"); slices.ContainsFunc(routes, func(r string) bool {
		return strings.Contains(r, "2024")
	}) {
		t.Errorf("a raw path is a label: %v", routes)
	}

	// A payment at the bank: its callback received and confirmed with the service.
	if err := sandboxPost(p, "/_sandbox/bank-payment", map[string]any{"bill_key": "2024001", "bill_component_list": []string{s.id("SPP Oktober")},
		"merchant_name": "Alfamart"}); err != nil {
		t.Fatal(err)
	}
	p.AwaitCallbacks(t)
	paid := scrape()
	delta := func(a, b metricstest.Scrape, name string, labels ...string) float64 {
		return b.Value(name, labels...) - a.Value(name, labels...)
	}
	if delta(after, paid, "portal_payment_callbacks_received_total") != 1 || delta(after, paid, "portal_payment_callbacks_confirmed_total") != 1 ||
		paid.Value("portal_payment_callbacks_unconfirmed") != 0 || paid.Value("portal_payment_callback_deliveries_total") != 1 {
		t.Errorf("callback: received %v, confirmed %v, unconfirmed %v, deliveries %v", paid.Value("portal_payment_callbacks_received_total"),
			paid.Value("portal_payment_callbacks_confirmed_total"), paid.Value("portal_payment_callbacks_unconfirmed"),
			paid.Value("portal_payment_callback_deliveries_total"))
	}
	if delta(after, paid, "portal_payment_callback_confirmation_seconds", "status", "confirmed") != 1 {
		t.Errorf("the confirmation is not timed: %v", paid.Value("portal_payment_callback_confirmation_seconds"))
	}
	if got := paid.Value("portal_payment_callback_last_received_timestamp_seconds"); got != float64(billsNow.Unix()) {
		t.Errorf("last callback at %v, want %v", got, billsNow.Unix())
	}
	if delta(after, paid, "portal_billing_call_duration_seconds", "endpoint", "Search", "status", "2xx", "error", "none") < 1 {
		t.Errorf("the confirmation's search is not counted: endpoints %v", paid.LabelValues("portal_billing_call_duration_seconds", "endpoint"))
	}
	if d := delta(after, paid, "portal_http_request_duration_seconds", "route", "/hooks/payments", "method", "POST", "status", "2xx"); d != 1 {
		t.Errorf("the callback's request: %v", d)
	}

	// A forged one: refused, nothing received.
	cbs := p.Sandbox.Callbacks()
	cb := cbs[len(cbs)-1]
	if code, _ := postCallback(t, p, strings.Repeat("0", 64), cb.Body); code != http.StatusUnauthorized {
		t.Fatalf("forged callback: %d", code)
	}
	refused := scrape()
	if delta(paid, refused, "portal_payment_callbacks_refused_total") != 1 || delta(paid, refused, "portal_payment_callbacks_received_total") != 0 {
		t.Errorf("forged callback: refused %v, received %v", refused.Value("portal_payment_callbacks_refused_total"),
			refused.Value("portal_payment_callbacks_received_total"))
	}

	// An upload sent while the service fails: the job waits for it, and so does a
	// payment announced meanwhile.
	sh, err := sheettest.Components(filepath.Join(t.TempDir(), "a.xlsx"), sheettest.Options{Rows: 12, Students: 4,
		FirstDue: time.Date(2026, 12, 10, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	enrol(t, p, sh, true)
	data, _ := os.ReadFile(sh.Path)
	id := uploadIDFrom(t, postUpload(t, p, c, "components", "a.xlsx", data))
	if j := waitUpload(t, p, id); j.State != uploads.StateReady {
		t.Fatalf("analysis: %s", j.State)
	}
	p.Sandbox.SetFaults(sandbox.Faults{ErrorRate: 1, Status: 503})
	if err := sandboxPost(p, "/_sandbox/bank-payment", map[string]any{"bill_key": "2024002", "bill_component_list": []string{s.id("SPP November")},
		"merchant_name": "Indomaret"}); err != nil {
		t.Fatal(err)
	}
	p.AwaitCallbacks(t)
	if res := c.Post("/uploads/"+id+"/commit", confirmYes()); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("commit: %d", res.StatusCode)
	}
	var down metricstest.Scrape
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		down = scrape()
		if down.Value("portal_jobs_waiting_for_service", "kind", "upload") == 1 && down.Value("portal_payment_callbacks_unconfirmed") == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not waiting for the service: upload jobs waiting %v, running %v, queued %v; callbacks unconfirmed %v",
				down.Value("portal_jobs_waiting_for_service", "kind", "upload"), down.Value("portal_jobs_running", "kind", "upload"),
				down.Value("portal_jobs_queued", "kind", "upload"), down.Value("portal_payment_callbacks_unconfirmed"))
		}
	}
	if down.Value("portal_jobs_running", "kind", "upload") != 1 || down.Value("portal_jobs_queued", "kind", "upload") != 0 {
		t.Errorf("the waiting upload: running %v, queued %v", down.Value("portal_jobs_running", "kind", "upload"),
			down.Value("portal_jobs_queued", "kind", "upload"))
	}
	if got := down.Value("portal_payment_callbacks_unconfirmed_rupiah"); got != 200_000 {
		t.Errorf("announced, unconfirmed: Rp %v, want 200000", got)
	}
	if got := down.Value("portal_payment_callbacks_unconfirmed_oldest_timestamp_seconds"); got != float64(billsNow.Unix()) {
		t.Errorf("the oldest unconfirmed arrived at %v", got)
	}
	failedCalls := down.Value("portal_billing_call_duration_seconds", "status", "5xx", "error", "unavailable")
	if failedCalls < 2 || down.Value("portal_billing_call_retries_total", "endpoint", "Search") < 1 {
		t.Errorf("failed calls %v, search retries %v; endpoints %v, errors %v", failedCalls,
			down.Value("portal_billing_call_retries_total", "endpoint", "Search"),
			down.LabelValues("portal_billing_call_duration_seconds", "endpoint"), down.LabelValues("portal_billing_call_duration_seconds", "error"))
	}

	// The service answers again: the job sends its twelve rows, the payment is confirmed.
	p.Sandbox.SetFaults(sandbox.Faults{})
	if res := c.Post("/uploads/"+id+"/retry", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("try now: %d", res.StatusCode)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if j, err := p.Uploads.Wait(ctx, id); err != nil || j.State != uploads.StateDone {
		t.Fatalf("upload after the service came back: %s %v", j.State, err)
	}
	var up metricstest.Scrape
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		up = scrape()
		// The confirmation is counted and timed just after its transaction, so the gauge
		// (read from the database) can say 0 a moment before the counters move.
		if up.Value("portal_payment_callbacks_unconfirmed") == 0 && up.Value("portal_payment_callback_confirmation_seconds", "status", "confirmed") >= 2 &&
			delta(refused, up, "portal_payment_callbacks_confirmed_total") >= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the waiting callback was not confirmed once the service answered")
		}
	}
	upload := []string{"kind", "upload"}
	if up.Value("portal_jobs_waiting_for_service", upload...)+up.Value("portal_jobs_running", upload...)+up.Value("portal_jobs_queued", upload...) != 0 {
		t.Errorf("upload jobs left: %v waiting, %v running, %v queued", up.Value("portal_jobs_waiting_for_service", upload...),
			up.Value("portal_jobs_running", upload...), up.Value("portal_jobs_queued", upload...))
	}
	if done, sent := up.Value("portal_job_items_total", "kind", "upload", "state", "done"), up.Value("portal_job_items_total", "kind", "upload", "state", "sent"); done != 12 || sent < 12 {
		t.Errorf("upload items: %v done, %v sent; want 12 done", done, sent)
	}
	if up.Series("portal_jobs_queued", "kind", "correction") != 1 {
		t.Errorf("the corrections' queue is not there: %v", up.LabelValues("portal_jobs_queued", "kind"))
	}
	if d := delta(refused, up, "portal_payment_callbacks_confirmed_total"); d != 1 || up.Value("portal_payment_callbacks_unconfirmed_rupiah") != 0 {
		t.Errorf("after the service came back: %v more confirmed", d)
	}
	if got := up.Value("portal_payment_callback_confirmation_seconds", "status", "confirmed"); got != 2 {
		t.Errorf("confirmations timed: %v, want 2", got)
	}
	if !up.Has("portal_registration_applications_waiting") || up.Value("portal_registration_applications_waiting") != 0 {
		t.Errorf("applications waiting: %v", up["portal_registration_applications_waiting"])
	}
	if math.IsInf(up.Value("portal_ledger_sync_lag_seconds"), 0) {
		t.Error("the sync lag is infinite after syncs that ended well")
	}
}

// BenchmarkMetricsScrape is one scrape of a demo school's portal (about 600 students and
// their year of bills, its callbacks): the database reads of the shared state, the
// runtime's collectors and the text format, over HTTP.
func BenchmarkMetricsScrape(b *testing.B) {
	p := portaltest.Start(b, portaltest.Options{Now: reportsNow, Demo: true, Metrics: true})
	b.ReportAllocs()
	for b.Loop() {
		res, err := http.Get(p.MetricsURL)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, res.Body); err != nil || res.StatusCode != http.StatusOK {
			b.Fatalf("scrape: %d %v", res.StatusCode, err)
		}
		res.Body.Close()
	}
}
