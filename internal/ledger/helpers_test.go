package ledger_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/sandbox"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/store/storetest"
)

// env is a sandbox over real HTTP (counting the calls it answers), the billing client,
// a SQLite store, the ledger on it, a syncer, and a receiver the sandbox sends its
// payment callbacks to.
type env struct {
	t     testing.TB
	sb    *sandbox.Server
	url   string
	c     *billing.Client
	db    *store.DB
	l     *ledger.Ledger
	s     *ledger.Syncer
	cf    *ledger.Confirmer // not started: a test that wants its worker starts it
	calls atomic.Int64      // service calls (not /_sandbox)
	// down makes the service answer 503 to every call after this many (0: never).
	down   atomic.Int64
	recv   *receiver
	recvTS *httptest.Server
}

// receiver answers the sandbox's callbacks through Confirmer.Receive; fail makes it
// answer 500 without storing, lose stores and then answers 500 (the answer lost), drop
// answers 500 always (the callback never arrives).
type receiver struct {
	mu sync.Mutex
	cf *ledger.Confirmer
	// route, when set, is the address of a portal whose own callback route (POST
	// /hooks/payments) gets every callback that gets through, over HTTP; its answer is
	// the answer (lose still answers 500 once it stored).
	route    string
	fail     int // the next n callbacks fail before storing
	lose     int // the next n callbacks are stored, then answered 500
	drop     bool
	received []ledger.CallbackResult
	errs     []error
}

func (rv *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rv.mu.Lock()
	cf, fail, lose, drop := rv.cf, rv.fail > 0, rv.lose > 0, rv.drop
	if fail {
		rv.fail--
	}
	if lose {
		rv.lose--
	}
	route := rv.route
	rv.mu.Unlock()
	if drop || fail || cf == nil && route == "" {
		http.Error(w, "not now", http.StatusInternalServerError)
		return
	}
	if route != "" {
		req, _ := http.NewRequestWithContext(r.Context(), http.MethodPost, route+"/hooks/payments", bytes.NewReader(body))
		req.Header.Set("Content-Type", r.Header.Get("Content-Type"))
		req.Header.Set(billing.CallbackHeader, r.Header.Get(billing.CallbackHeader))
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			http.Error(w, "the portal did not answer", http.StatusBadGateway)
			return
		}
		answer, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			rv.mu.Lock()
			rv.errs = append(rv.errs, fmt.Errorf("the callback route answered %d: %s", res.StatusCode, answer))
			rv.mu.Unlock()
		}
		if lose {
			http.Error(w, "failed", http.StatusInternalServerError)
			return
		}
		w.WriteHeader(res.StatusCode)
		return
	}
	res, err := cf.Receive(r.Context(), r.Header.Get(billing.CallbackHeader), body)
	rv.mu.Lock()
	rv.received = append(rv.received, res)
	if err != nil {
		rv.errs = append(rv.errs, err)
	}
	rv.mu.Unlock()
	if err != nil || lose {
		http.Error(w, "failed", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

const (
	sbUser = "10014"
	sbPass = "issued-secret"
)

// eachEngine runs fn on SQLite and, when PORTAL_TEST_POSTGRES_URL is set, on PostgreSQL.
func eachEngine(t *testing.T, fn func(t *testing.T, engine string)) {
	t.Parallel()
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			fn(t, engine)
		})
	}
}

// openDB opens a fresh migrated store of the engine (PostgreSQL skips the test when
// PORTAL_TEST_POSTGRES_URL is not set).
func openDB(t testing.TB, engine string) *store.DB {
	t.Helper()
	if engine == "postgres" {
		return storetest.OpenPostgres(t)
	}
	return storetest.OpenTest(t)
}

// newEnv starts everything on a fresh sandbox whose clock stands at now, on SQLite.
func newEnv(t testing.TB, now time.Time) *env { return newEnvOn(t, "sqlite", now) }

// newEnvOn is newEnv on the given engine.
func newEnvOn(t testing.TB, engine string, now time.Time) *env {
	t.Helper()
	e := &env{t: t, recv: &receiver{}}
	e.recvTS = httptest.NewServer(e.recv)
	t.Cleanup(e.recvTS.Close)
	sb, err := sandbox.New(sandbox.Options{Username: sbUser, Password: sbPass, Location: jakarta, Now: now,
		Accounts: []string{"SPP", "BCA", "MANDIRI"}, CallbackURL: e.recvTS.URL + "/hooks/payments",
		CallbackRetries: []time.Duration{50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	e.sb = sb
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/_sandbox") {
			n := e.calls.Add(1)
			if d := e.down.Load(); d > 0 && n > d {
				http.Error(w, `{"status":"Service Unavailable","status_code":503,"status_desc":"down for the test","data":null}`, http.StatusServiceUnavailable)
				return
			}
		}
		sb.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		ts.Close()
		sb.Close()
	})
	e.url = ts.URL
	e.c, err = billing.New(billing.Config{BaseURL: ts.URL, Username: sbUser, Password: sbPass, Location: jakarta,
		Now: sb.Now, RetryBase: time.Millisecond, RetryMax: 5 * time.Millisecond, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	e.db = openDB(t, engine)
	e.l, err = ledger.New(context.Background(), ledger.Config{DB: e.db, Clock: clock.New(sb.Now, jakarta), Verify: e.c.VerifyCallback,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	e.cf, err = ledger.NewConfirmer(ledger.ConfirmConfig{Ledger: e.l, Client: e.c, Clock: clock.New(sb.Now, jakarta),
		RetryBase: 10 * time.Millisecond, RetryMax: 100 * time.Millisecond, Poll: 100 * time.Millisecond,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	e.recv.mu.Lock()
	e.recv.cf = e.cf
	e.recv.mu.Unlock()
	e.s, err = ledger.NewSyncer(ledger.SyncConfig{Ledger: e.l, Client: e.c, ReconcileHour: -1, FillConcurrency: 3,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// sandboxPost calls a /_sandbox route.
func (e *env) sandboxPost(path string, in any, out any) {
	e.t.Helper()
	if err := e.trySandboxPost(path, in, out); err != nil {
		e.t.Fatal(err)
	}
}

// trySandboxPost is sandboxPost that returns the failure.
func (e *env) trySandboxPost(path string, in any, out any) error {
	body, _ := json.Marshal(in)
	req, _ := http.NewRequest(http.MethodPost, e.url+path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.SetBasicAuth(sbUser, billing.DailyPassword(sbPass, e.sb.Now().In(jakarta)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("POST %s: %d %s", path, resp.StatusCode, raw)
	}
	if out != nil {
		var env struct {
			Data json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(raw, &env); err != nil {
			return err
		}
		return json.Unmarshal(env.Data, out)
	}
	return nil
}

// bankPay pays components as a parent at a bank; the sandbox sends the callback.
func (e *env) bankPay(nis string, ids ...string) {
	e.t.Helper()
	e.sandboxPost("/_sandbox/bank-payment", map[string]any{"bill_key": nis, "bill_component_list": ids, "merchant_name": "BNI"}, nil)
}

// waitCallbacks waits until the sandbox has no callback left to try.
func (e *env) waitCallbacks() {
	e.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		pending := 0
		for _, cb := range e.sb.Callbacks() {
			if cb.State == "pending" {
				pending++
			}
		}
		if pending == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	e.t.Fatal("callbacks still pending after 10s")
}

// students creates n students NIS prefix0001… at the service.
func (e *env) students(prefix string, n int) []billing.Student {
	e.t.Helper()
	var list []billing.Student
	for i := range n {
		list = append(list, billing.Student{NIS: fmt.Sprintf("%s%04d", prefix, i+1), Name: fmt.Sprintf("Siswa %s %d", prefix, i+1),
			Description: fmt.Sprintf("Kelas %d%c", 7+i%3, 'A'+rune(i%2)), Phone: "0812000" + fmt.Sprint(i)})
	}
	for start := 0; start < len(list); start += 1000 {
		if _, err := e.c.CreateStudents(context.Background(), list[start:min(start+1000, len(list))]); err != nil {
			e.t.Fatal(err)
		}
	}
	return list
}

// components uploads n components spread over the students, due monthly around today.
func (e *env) components(students []billing.Student, n int, tag string) []billing.Bill {
	e.t.Helper()
	today := billing.DayIn(e.sb.Now(), jakarta)
	var in []billing.ComponentInput
	for i := range n {
		due := today.AddDate(0, i%7-3, 0)
		in = append(in, billing.ComponentInput{NIS: students[i%len(students)].NIS, AccountCode: []string{"SPP", "BCA", "MANDIRI"}[i%3],
			Name: fmt.Sprintf("%s %d", tag, i%12), Due: due, Expiry: due.AddDate(0, 2, 0), Amount: int64(100_000 + 5_000*(i%9)), Penalty: int64(1_000 * (i % 4))})
	}
	var out []billing.Bill
	for start := 0; start < len(in); start += 1000 {
		got, err := e.c.CreateComponents(context.Background(), in[start:min(start+1000, len(in))])
		if err != nil {
			e.t.Fatal(err)
		}
		out = append(out, got...)
	}
	return out
}

// quiet waits until the sandbox has answered no call for 50ms: a walk's pages fetched
// ahead of its end are cancelled, but may still reach the service a moment later.
func (e *env) quiet() {
	last := e.calls.Load()
	for {
		time.Sleep(50 * time.Millisecond)
		now := e.calls.Load()
		if now == last {
			return
		}
		last = now
	}
}

// sync runs one incremental sync and returns the service calls it made.
func (e *env) sync() int {
	e.t.Helper()
	e.quiet()
	before := e.calls.Load()
	if _, err := e.s.RunIncremental(context.Background()); err != nil {
		e.t.Fatal(err)
	}
	return int(e.calls.Load() - before)
}

// reconcile runs one full reconcile.
func (e *env) reconcile() ledger.RunResult {
	e.t.Helper()
	r, err := e.s.RunReconcile(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	return r
}

// walk reads every component from the service (deleted ones left out), as the reports do.
func (e *env) walk() []billing.Bill {
	e.t.Helper()
	var out []billing.Bill
	for b, err := range e.c.All(context.Background(), billing.Query{}) {
		if err != nil {
			e.t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// ledgerAll reads every component of the ledger (deleted ones left out).
func (e *env) ledgerAll() []billing.Bill {
	e.t.Helper()
	var out []billing.Bill
	for b, err := range e.l.All(context.Background(), billing.Query{}) {
		if err != nil {
			e.t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// sameAsService fails the test unless the ledger holds exactly what a full walk of the
// service reads, field by field (instants to the microsecond the ledger keeps).
func (e *env) sameAsService() {
	e.t.Helper()
	want := e.walk()
	got := e.ledgerAll()
	byID := map[string]billing.Bill{}
	for _, b := range got {
		byID[b.ComponentID] = b
	}
	if len(got) != len(want) {
		e.t.Errorf("the ledger holds %d components, the service %d", len(got), len(want))
	}
	bad := 0
	for _, w := range want {
		g, ok := byID[w.ComponentID]
		if !ok {
			e.t.Errorf("component %s (%s, NIS %s, %s) is at the service, not in the ledger", w.ComponentID, w.Name, w.NIS, w.State)
		} else if d := billDiff(g, w); d != "" {
			e.t.Errorf("component %s differs: %s", w.ComponentID, d)
		} else {
			continue
		}
		if bad++; bad > 10 {
			e.t.Fatal("more than 10 differences")
		}
	}
}

// billDiff lists the fields where got differs from want.
func billDiff(got, want billing.Bill) string {
	trunc := func(t time.Time) time.Time {
		if t.IsZero() {
			return t
		}
		return t.UTC().Truncate(time.Microsecond)
	}
	for _, b := range []*billing.Bill{&got, &want} {
		b.Active, b.Due, b.Expiry, b.PaidAt, b.CreatedAt, b.UpdatedAt =
			trunc(b.Active), trunc(b.Due), trunc(b.Expiry), trunc(b.PaidAt), trunc(b.CreatedAt), trunc(b.UpdatedAt)
	}
	if got == want {
		return ""
	}
	return fmt.Sprintf("\n ledger  %+v\n service %+v", got, want)
}

// failAll makes every later request to the sandbox fail with 503.
func failAll() sandbox.Faults { return sandbox.Faults{ErrorRate: 1, Status: 503} }
