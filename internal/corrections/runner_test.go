package corrections_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/changes"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/corrections"
	"github.com/sekolah/portal/internal/sandbox"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/store/storetest"
)

var financeActor = auth.Actor{ID: "user-finance", Username: "finance", Role: auth.Finance, IP: "127.0.0.1"}

// env is a real database, the sandbox over real HTTP, and a portal instance's client and
// writer on them.
type env struct {
	applied *applied
	db      *store.DB
	sb      *sandbox.Server
	url     string
	timeout time.Duration
	// settle is the runners' Settle (default timeout: a call without an answer has
	// landed by the time the client would have given up on it).
	settle time.Duration
	log    *slog.Logger
}

// newEnv is the environment on SQLite, or on a PostgreSQL schema of its own with
// postgres (skipped unless PORTAL_TEST_POSTGRES_URL is set).
func newEnv(t *testing.T, timeout time.Duration, postgres ...bool) *env {
	t.Helper()
	var db *store.DB
	if len(postgres) > 0 && postgres[0] {
		db = storetest.Open(t, storetest.MigratedPostgresURL(t))
	} else {
		db = storetest.OpenTest(t)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if testing.Verbose() && os.Getenv("CORRECTIONS_LOG") != "" {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	sb, err := sandbox.New(sandbox.Options{Username: "portal", Password: "issued", Accounts: []string{"SPP", "BCA"},
		Now: time.Date(2026, 7, 1, 3, 0, 0, 0, time.UTC), HangLimit: 10 * time.Second, Seed: 7, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	a := &applied{next: sb, n: map[string]int{}, maybe: map[string]int{}}
	srv := httptest.NewServer(a)
	t.Cleanup(func() { srv.Close(); sb.Close() })
	return &env{applied: a, db: db, sb: sb, url: srv.URL, timeout: timeout, settle: timeout, log: log}
}

// applied counts, per component, the updates and cancels the sandbox applied: those it
// answered 200, or applied and then held without an answer (the timeout fault); a 503
// fault applies nothing.
type applied struct {
	next     http.Handler
	mu       sync.Mutex
	n        map[string]int
	maybe    map[string]int // cut by the caller mid-way, answered with an error: may have been applied
	inflight int
	// hold, when set, is how long a call about a component is held on its way before it
	// reaches the service, whether or not its caller is still there.
	hold func(component string) time.Duration
}

type statusRecorder struct {
	http.ResponseWriter
	code int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.code == 0 {
		s.code = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(p []byte) (int, error) {
	if s.code == 0 {
		s.code = http.StatusOK
	}
	return s.ResponseWriter.Write(p)
}

func (a *applied) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var ids []string
	if (r.Method == http.MethodPut && r.URL.Path == "/bill_component") || (r.Method == http.MethodPost && r.URL.Path == "/bill_component/delete") {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var in struct {
			ID  string   `json:"id"`
			IDs []string `json:"bill_component_id"`
		}
		_ = json.Unmarshal(body, &in)
		ids = append(in.IDs, in.ID)
	}
	a.mu.Lock()
	a.inflight++
	hold := a.hold
	a.mu.Unlock()
	if hold != nil && len(ids) > 0 {
		if d := hold(ids[len(ids)-1]); d > 0 {
			time.Sleep(d)
			r = r.WithContext(context.WithoutCancel(r.Context()))
		}
	}
	rec := &statusRecorder{ResponseWriter: w}
	a.next.ServeHTTP(rec, r)
	a.mu.Lock()
	defer a.mu.Unlock()
	a.inflight--
	count := a.n
	switch {
	case rec.code == 0 || rec.code == http.StatusOK:
	case r.Context().Err() != nil:
		count = a.maybe // the runner was stopped hard during the call
	default:
		return
	}
	for _, id := range ids {
		if id != "" {
			count[id]++
		}
	}
}

// count is how many times the service applied a change to id for sure, and how many
// calls cut by a hard stop may have applied one, once no request is in flight (a request
// held by the timeout fault ends when the server sees the client gone).
func (a *applied) count(id string) (sure, maybe int) {
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		a.mu.Lock()
		if a.inflight == 0 || time.Now().After(deadline) {
			defer a.mu.Unlock()
			return a.n[id], a.maybe[id]
		}
		a.mu.Unlock()
	}
}

// once checks that the service applied the change to id exactly once: one sure, or none
// sure and one call cut by the hard stop (found applied when read, so not sent again).
func (a *applied) once(t *testing.T, id string) {
	t.Helper()
	sure, maybe := a.count(id)
	if sure > 1 || maybe > 1 || sure+maybe == 0 {
		t.Errorf("%s: the service applied %d changes (and %d calls cut midway may have), want exactly one", id, sure, maybe)
	}
}

// runner is one portal instance's correction runner (its own client and writer), started.
func (e *env) runner(t *testing.T, chunk int) *corrections.Runner {
	t.Helper()
	client, err := billing.New(billing.Config{BaseURL: e.url, Username: "portal", Password: "issued", Now: e.sb.Now,
		Timeout: e.timeout, RetryBase: 5 * time.Millisecond, RetryMax: 20 * time.Millisecond, Logger: e.log,
		// One attempt per call: the client's own retry of a PUT that timed out would apply
		// it twice, and the test counts what the job sends.
		MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	w := &changes.Writer{Client: client, DB: e.db, Log: e.log, Clock: clock.System(time.UTC)}
	r := corrections.NewRunner(corrections.Config{ChunkSize: chunk, LeaseTTL: time.Second, LeaseRenew: 200 * time.Millisecond,
		RetryBase: 5 * time.Millisecond, RetryMax: 50 * time.Millisecond, Settle: e.settle, Clock: clock.System(time.UTC)}, e.db, w, e.log)
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Stop(context.Background()) })
	return r
}

// seed makes n students with two components each at the service.
func (e *env) seed(t *testing.T, n int) []billing.Bill {
	t.Helper()
	ctx := context.Background()
	client, _ := billing.New(billing.Config{BaseURL: e.url, Username: "portal", Password: "issued", Now: e.sb.Now, Timeout: 5 * time.Second})
	var students []billing.Student
	var comps []billing.ComponentInput
	for i := range n {
		nis := fmt.Sprintf("26%04d", i)
		students = append(students, billing.Student{NIS: nis, Name: "Siswa " + nis})
		for _, name := range []string{"SPP Agustus", "Buku"} {
			comps = append(comps, billing.ComponentInput{NIS: nis, AccountCode: "SPP", Name: name, Amount: 400_000, Penalty: 10_000,
				Due: time.Date(2026, 8, 10, 0, 0, 0, 0, time.UTC), Expiry: time.Date(2026, 12, 31, 0, 0, 0, 0, time.UTC),
				Active: time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC), Notes: "kelas 7"})
		}
	}
	if _, err := client.CreateStudents(ctx, students); err != nil {
		t.Fatal(err)
	}
	bills, err := client.CreateComponents(ctx, comps)
	if err != nil {
		t.Fatal(err)
	}
	return bills
}

func (e *env) client(t *testing.T) *billing.Client {
	c, err := billing.New(billing.Config{BaseURL: e.url, Username: "portal", Password: "issued", Now: e.sb.Now, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// stopMidway waits until at least n items are done, then stops r hard (calls in flight cut).
func stopMidway(t *testing.T, db *store.DB, r *corrections.Runner, id string, n int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		j, err := db.CorrectionJobByID(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if !corrections.Running(j.State) {
			t.Fatalf("the job ended (%s) before the restart; the test would prove nothing", j.State)
		}
		if j.Done+j.Skipped >= n {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("job made no progress: %+v", j)
		}
		time.Sleep(5 * time.Millisecond)
	}
	stopped, cancel := context.WithCancel(context.Background())
	cancel()
	_ = r.Stop(stopped)
}

func waitJob(t *testing.T, db *store.DB, id string) store.CorrectionJob {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		j, err := db.CorrectionJobByID(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if !corrections.Running(j.State) {
			return j
		}
		if time.Now().After(deadline) {
			t.Fatalf("job not finished: %+v", j)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// auditEntries lists every audit entry of action.
func auditEntries(t *testing.T, db *store.DB, action string) []store.AuditEntry {
	t.Helper()
	var all []store.AuditEntry
	for off := 0; ; off += store.MaxAuditLimit {
		page, _, err := db.ListAudit(context.Background(), store.AuditFilter{Action: action, Offset: off, Limit: store.MaxAuditLimit})
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, page...)
		if len(page) < store.MaxAuditLimit {
			return all
		}
	}
}

// TestBulkUpdateUnderFaultsAndRestart is the correction job's promise: an amount changed
// on 160 components while the service fails a fifth of the calls and lets some time out
// after applying them, with the runner stopped hard in the middle and another started,
// ends with every component changed exactly once (one write that reached the service
// each, every other field as it was), and the one paid meanwhile left alone.
func TestBulkUpdateUnderFaultsAndRestart(t *testing.T) {
	t.Parallel()
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			testBulkUpdate(t, newEnv(t, 150*time.Millisecond, engine == "postgres"))
		})
	}
}

func testBulkUpdate(t *testing.T, e *env) {
	bills := e.seed(t, 80)
	ctx := context.Background()
	amount := int64(475_000)
	req := corrections.Request{Kind: corrections.KindUpdate, Source: corrections.SourceBulk, Field: "amount", Value: "475.000", Actor: financeActor}
	for _, b := range bills {
		req.Items = append(req.Items, corrections.Item{Component: b, Update: billing.ComponentUpdate{Amount: &amount}})
		req.AmountBefore += b.Amount
		req.AmountAfter += amount
	}
	// One is paid at a bank after the preview, before the job reaches it.
	paid := bills[len(bills)-1]
	if _, err := e.client(t).Pay(ctx, billing.Payment{NIS: paid.NIS, ComponentIDs: []string{paid.ComponentID}}); err != nil {
		t.Fatal(err)
	}

	r1 := e.runner(t, 20)
	e.sb.SetFaults(sandbox.Faults{ErrorRate: 0.2, Status: 503, TimeoutRate: 0.05})
	id, err := r1.Submit(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	stopMidway(t, e.db, r1, id, len(bills)/3)
	mid, _ := e.db.CorrectionItems(ctx, id)
	states := map[string]int{}
	for _, it := range mid {
		states[it.State]++
	}
	t.Logf("stopped with items %v", states)

	e.runner(t, 20)
	j := waitJob(t, e.db, id)
	e.sb.SetFaults(sandbox.Faults{})
	if j.State != corrections.StateDone || j.Done != len(bills)-1 || j.Skipped != 1 || j.Failed != 0 {
		t.Fatalf("job: state %s done %d skipped %d failed %d", j.State, j.Done, j.Skipped, j.Failed)
	}

	// At the service, field by field.
	client := e.client(t)
	for _, b := range bills {
		got, err := client.GetComponent(ctx, b.ComponentID)
		if err != nil {
			t.Fatal(err)
		}
		want := amount
		if b.ComponentID == paid.ComponentID {
			want = b.Amount
		}
		if got.Amount != want || got.Name != b.Name || got.AccountCode != b.AccountCode || got.Penalty != b.Penalty ||
			!got.Due.Equal(b.Due) || !got.Expiry.Equal(b.Expiry) || !got.Active.Equal(b.Active) || got.Notes != b.Notes || got.NIS != b.NIS {
			t.Errorf("%s at the service: %+v, was %+v", b.ComponentID, got, b)
		}
	}
	// The audit: per component, one confirmed write, or none confirmed and the write
	// whose answer was lost (found applied when read): never two confirmed.
	ok, unknown := map[string]int{}, map[string]int{}
	failed := 0
	for _, a := range auditEntries(t, e.db, changes.ActionComponentUpdate) {
		if !strings.Contains(a.Detail, "correction "+id) {
			t.Errorf("audit entry not linked to the job: %q", a.Detail)
		}
		switch a.Outcome {
		case changes.OutcomeOK:
			ok[a.Target]++
		case changes.OutcomeUnknown:
			unknown[a.Target]++
		default:
			failed++
		}
	}
	for _, b := range bills[:len(bills)-1] {
		if ok[b.ComponentID] > 1 || ok[b.ComponentID]+unknown[b.ComponentID] == 0 {
			t.Errorf("%s: %d confirmed writes, %d without an answer", b.ComponentID, ok[b.ComponentID], unknown[b.ComponentID])
		}
	}
	if ok[paid.ComponentID]+unknown[paid.ComponentID] != 0 {
		t.Errorf("the paid component was written")
	}
	// At the service: each update applied exactly once, however many answers were lost.
	for _, b := range bills {
		if b.ComponentID == paid.ComponentID {
			if sure, maybe := e.applied.count(b.ComponentID); sure+maybe != 0 {
				t.Errorf("the paid component was updated")
			}
			continue
		}
		e.applied.once(t, b.ComponentID)
	}
	t.Logf("%d confirmed updates, %d without an answer, %d refused", len(ok), len(unknown), failed)
	items, _ := e.db.CorrectionItems(ctx, id, corrections.ItemSkipped)
	if len(items) != 1 || items[0].ComponentID != paid.ComponentID || items[0].Problem != corrections.ProblemPaid {
		t.Errorf("skipped: %+v", items)
	}
}

// TestCutCallLandingLate: an update whose call a hard stop cuts while it is still on its
// way, and which reaches the service only afterwards, is read by the next runner once it
// has landed (Settle after the cut): found applied, not sent a second time.
func TestCutCallLandingLate(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 5*time.Second)
	e.settle = time.Second
	b := e.seed(t, 1)[0]
	ctx := context.Background()
	leaving := make(chan struct{})
	var calls int
	var mu sync.Mutex
	e.applied.mu.Lock()
	e.applied.hold = func(id string) time.Duration {
		mu.Lock()
		defer mu.Unlock()
		if calls++; id != b.ComponentID || calls > 1 {
			return 0
		}
		close(leaving)
		return 300 * time.Millisecond
	}
	e.applied.mu.Unlock()

	amount := int64(455_000)
	r1 := e.runner(t, 10)
	id, err := r1.Submit(ctx, corrections.Request{Kind: corrections.KindUpdate, Source: corrections.SourceBulk, Field: "amount",
		Value: "455.000", Actor: financeActor, Items: []corrections.Item{{Component: b, Update: billing.ComponentUpdate{Amount: &amount}}}})
	if err != nil {
		t.Fatal(err)
	}
	<-leaving
	stopped, cancel := context.WithCancel(ctx)
	cancel()
	_ = r1.Stop(stopped)
	e.runner(t, 10)
	j := waitJob(t, e.db, id)
	if j.State != corrections.StateDone || j.Done != 1 {
		t.Fatalf("job: state %s done %d skipped %d failed %d", j.State, j.Done, j.Skipped, j.Failed)
	}
	e.applied.once(t, b.ComponentID)
	if got, err := e.client(t).GetComponent(ctx, b.ComponentID); err != nil || got.Amount != amount {
		t.Fatalf("at the service: %d, %v", got.Amount, err)
	}
}

// TestBulkCancelUnderFaultsAndRestart: cancels in chunks (one call each, all or none)
// under the same faults and a restart: every component cancelled, the one already
// cancelled counted done, the one paid meanwhile kept, every chunk's cancel reaching the
// service once.
func TestBulkCancelUnderFaultsAndRestart(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 150*time.Millisecond)
	bills := e.seed(t, 60)
	ctx := context.Background()
	req := corrections.Request{Kind: corrections.KindCancel, Source: corrections.SourceBulk, Reason: "salah unggah", Actor: financeActor}
	for _, b := range bills {
		req.Items = append(req.Items, corrections.Item{Component: b})
	}
	client := e.client(t)
	paid, gone := bills[5], bills[17]
	if _, err := client.Pay(ctx, billing.Payment{NIS: paid.NIS, ComponentIDs: []string{paid.ComponentID}}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.DeleteComponents(ctx, billing.ComponentDeletion{ComponentIDs: []string{gone.ComponentID}}); err != nil {
		t.Fatal(err)
	}
	r1 := e.runner(t, 10)
	e.sb.SetFaults(sandbox.Faults{ErrorRate: 0.2, Status: 503, TimeoutRate: 0.05})
	id, err := r1.Submit(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	stopMidway(t, e.db, r1, id, len(bills)/3)
	e.runner(t, 10)
	j := waitJob(t, e.db, id)
	e.sb.SetFaults(sandbox.Faults{})
	if j.State != corrections.StateDone || j.Done != len(bills)-1 || j.Skipped != 1 || j.Failed != 0 {
		t.Fatalf("job: state %s done %d skipped %d failed %d", j.State, j.Done, j.Skipped, j.Failed)
	}
	for _, b := range bills {
		got, err := client.GetComponent(ctx, b.ComponentID)
		if err != nil {
			t.Fatal(err)
		}
		want := billing.StateDeleted
		if b.ComponentID == paid.ComponentID {
			want = billing.StatePaid
		}
		if got.State != want || got.Amount != b.Amount {
			t.Errorf("%s: %s %d", b.ComponentID, got.State, got.Amount)
		}
	}
	// The audit: per component, one confirmed cancel, or none confirmed and one whose
	// answer was lost (found cancelled when read); never two confirmed.
	ok, unknown := map[string]int{}, map[string]int{}
	for _, a := range auditEntries(t, e.db, changes.ActionComponentsCancel) {
		if a.Args["reason"] != "salah unggah" || !strings.Contains(a.Detail, "correction "+id) {
			t.Errorf("audit entry: reason %q, detail %q", a.Args["reason"], a.Detail)
		}
		for _, b := range bills {
			if !strings.Contains(a.Detail, b.ComponentID) {
				continue
			}
			switch a.Outcome {
			case changes.OutcomeOK:
				ok[b.ComponentID]++
			case changes.OutcomeUnknown:
				unknown[b.ComponentID]++
			}
		}
	}
	for _, b := range bills {
		switch {
		case b.ComponentID == paid.ComponentID || b.ComponentID == gone.ComponentID:
			if ok[b.ComponentID] != 0 {
				t.Errorf("%s (paid or cancelled before) confirmed cancelled by the job", b.ComponentID)
			}
		case ok[b.ComponentID] > 1 || ok[b.ComponentID]+unknown[b.ComponentID] == 0:
			t.Errorf("%s: %d confirmed cancels, %d without an answer", b.ComponentID, ok[b.ComponentID], unknown[b.ComponentID])
		default:
			e.applied.once(t, b.ComponentID)
		}
	}
}
