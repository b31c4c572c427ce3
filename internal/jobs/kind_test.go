package jobs_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/jobs"
	"github.com/sekolah/portal/internal/sandbox"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/store/storetest"
)

// The tests run the engine with a kind of their own, as a newcomer would write one:
// components created in batches at the sandbox (over real HTTP, with its faults), each
// found again after a lost answer by its student, name and due day. Its chunks are kept
// in memory shared by the test's instances (the stand-in for the kind's tables); the
// leases are the database's (store.NamedLeases), on SQLite or PostgreSQL.

var accounts = []string{"SPP", "BCA"}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// env is the sandbox, its students, and the database the instances share.
type env struct {
	sb      *sandbox.Server
	url     string
	db      *store.DB
	log     *slog.Logger
	timeout time.Duration
	nis     []string
}

func newEnv(t testing.TB, timeout time.Duration, students int, postgres bool) *env {
	t.Helper()
	sb, err := sandbox.New(sandbox.Options{Username: "portal", Password: "issued", Accounts: accounts, Seed: 11, Logger: quiet,
		Now: time.Date(2026, 7, 1, 3, 0, 0, 0, time.UTC), HangLimit: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(sb)
	e := &env{sb: sb, url: srv.URL, log: quiet, timeout: timeout}
	t.Cleanup(func() { srv.Close(); sb.Close() })
	if postgres {
		e.db = storetest.OpenPostgres(t)
	} else {
		e.db = storetest.OpenTest(t)
	}
	var list []billing.Student
	for i := range students {
		n := fmt.Sprintf("77%04d", i)
		e.nis = append(e.nis, n)
		list = append(list, billing.Student{NIS: n, Name: "Siswa " + n})
	}
	if len(list) > 0 {
		if _, err := e.client(t, nil, 10*time.Second, "issued").CreateStudents(context.Background(), list); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// client is a client on the sandbox whose calls go through rt (nil: straight), each
// tried once (what reaches the sandbox twice was sent twice by the engine).
func (e *env) client(t testing.TB, rt http.RoundTripper, timeout time.Duration, password string) *billing.Client {
	t.Helper()
	var hc *http.Client
	if rt != nil {
		hc = &http.Client{Transport: rt}
	}
	c, err := billing.New(billing.Config{BaseURL: e.url, Username: "portal", Password: password, Now: e.sb.Now, Timeout: timeout,
		MaxAttempts: 1, RetryBase: 5 * time.Millisecond, RetryMax: 20 * time.Millisecond, Logger: e.log, HTTPClient: hc})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// components are n components for the students, chunk at a time.
func (e *env) components(n, chunk int) [][]billing.ComponentInput {
	var out [][]billing.ComponentInput
	for i := range n {
		if i%chunk == 0 {
			out = append(out, nil)
		}
		due := time.Date(2026, time.Month(8+i/len(e.nis)%12), 10, 0, 0, 0, 0, time.UTC)
		out[len(out)-1] = append(out[len(out)-1], billing.ComponentInput{NIS: e.nis[i%len(e.nis)], AccountCode: "SPP",
			Name: fmt.Sprintf("Uji %d", i), Due: due, Expiry: due.AddDate(0, 1, 0), Amount: 100_000 + int64(i)})
	}
	return out
}

// atService counts the components at the service by name, and how many there are twice.
func (e *env) atService(t testing.TB) (map[string]int, int) {
	t.Helper()
	names, twice := map[string]int{}, 0
	for b, err := range e.client(t, nil, 10*time.Second, "issued").All(context.Background(), billing.Query{}) {
		if err != nil {
			t.Fatal(err)
		}
		if names[b.Name]++; names[b.Name] == 2 {
			twice++
		}
	}
	return names, twice
}

// memStore keeps one job's chunks, as a kind's tables would: every instance reads and
// writes the same.
type memStore struct {
	mu       sync.Mutex
	chunks   []*jobs.Chunk
	waiting  time.Time
	hurry    time.Time
	finished bool
	oneByOne bool
	runs     []run // who ran the job, when
}

// run is one instance's run of the job, under its lease.
type run struct {
	owner      string
	start, end time.Time
}

// running notes that owner runs the job from now; done notes the end.
func (m *memStore) running(owner string) (done func()) {
	m.mu.Lock()
	defer m.mu.Unlock()
	i := len(m.runs)
	m.runs = append(m.runs, run{owner: owner, start: time.Now()})
	return func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		m.runs[i].end = time.Now()
	}
}

// overlapping reports two runs of different instances at the same time (one still going
// counts until now): the lease failed.
func (m *memStore) overlapping() (run, run, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	runs := slices.Clone(m.runs)
	for i := range runs {
		if runs[i].end.IsZero() {
			runs[i].end = time.Now()
		}
	}
	for i, a := range runs {
		for _, b := range runs[i+1:] {
			if a.owner != b.owner && a.start.Before(b.end) && b.start.Before(a.end) {
				return a, b, true
			}
		}
	}
	return run{}, run{}, false
}

func newMemStore(chunks [][]billing.ComponentInput) *memStore {
	m := &memStore{}
	for seq, in := range chunks {
		c := &jobs.Chunk{Job: "job", Seq: seq, State: jobs.ChunkPending}
		for i := range in {
			c.Items = append(c.Items, jobs.Item{Key: i, State: jobs.Pending})
		}
		m.chunks = append(m.chunks, c)
	}
	return m
}

func (m *memStore) OpenChunks(context.Context, string) ([]int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []int
	for _, c := range m.chunks {
		if !c.State.Closed() {
			out = append(out, c.Seq)
		}
	}
	return out, nil
}

func (m *memStore) LoadChunk(_ context.Context, _ string, seq int) (*jobs.Chunk, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := *m.chunks[seq]
	c.Items = slices.Clone(c.Items)
	c.OneByOne = m.oneByOne
	return &c, nil
}

func (m *memStore) SaveChunk(_ context.Context, c *jobs.Chunk) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	saved := *c
	saved.Items = slices.Clone(c.Items)
	saved.Data = nil
	m.chunks[c.Seq] = &saved
	return nil
}

func (m *memStore) Waiting(context.Context, string) (since, hurry time.Time, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.waiting, m.hurry, nil
}

func (m *memStore) SetWaiting(_ context.Context, _ string, since time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.waiting = since
	return nil
}

// sum counts the items per state, and the chunks' sends and recognised items.
func (m *memStore) sum() (states map[jobs.State]int, attempts, recognised int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	states = map[jobs.State]int{}
	for _, c := range m.chunks {
		attempts += c.Attempts
		recognised += c.Recognised
		for _, it := range c.Items {
			states[it.State]++
		}
	}
	return states, attempts, recognised
}

// compJob is the kind's job on one instance: the shared chunks, that instance's client.
type compJob struct {
	*memStore
	inputs [][]billing.ComponentInput
	client *billing.Client
	// blind: Refused cannot tell which item the service refused (it decides none).
	blind bool
}

func (j *compJob) Send(ctx context.Context, c *jobs.Chunk, items []*jobs.Item) error {
	in := make([]billing.ComponentInput, len(items))
	for i, it := range items {
		in[i] = j.inputs[c.Seq][it.Key]
	}
	_, err := j.client.CreateComponents(ctx, in)
	return err
}

// Check searches the service for the items by their due day (one search per day, a
// page or two), and finds each by its student and name.
func (j *compJob) Check(ctx context.Context, c *jobs.Chunk, items []*jobs.Item) error {
	there := map[string]bool{}
	searched := map[time.Time]bool{}
	for _, it := range items {
		due := j.inputs[c.Seq][it.Key].Due
		if searched[due] {
			continue
		}
		searched[due] = true
		for b, err := range j.client.All(ctx, billing.Query{DueFrom: due, DueTo: due}) {
			if err != nil {
				return err
			}
			there[b.NIS+"|"+b.Name] = true
		}
	}
	for _, it := range items {
		if in := j.inputs[c.Seq][it.Key]; there[in.NIS+"|"+in.Name] {
			c.Decide(it, jobs.Decision{State: jobs.Done})
		}
	}
	return nil
}

func (j *compJob) Refused(_ context.Context, c *jobs.Chunk, items []*jobs.Item, err error) error {
	var apiErr *billing.APIError
	if errors.As(err, &apiErr) && !j.blind {
		for _, e := range apiErr.Items {
			if e.Index >= 0 && e.Index < len(items) {
				c.Decide(items[e.Index], jobs.Decision{State: jobs.Failed,
					Problem: jobs.Problem{Code: jobs.ProblemRefused, Arg: e.Field + ": " + e.Message}})
			}
		}
	}
	return nil
}

// start starts an instance named owner running job j with cfg, its leases lasting ttl: a
// jobs.Runner, as a kind assembles one.
func (e *env) start(t testing.TB, owner string, j kindJob, cfg jobs.Config, ttl time.Duration) *jobs.Runner {
	t.Helper()
	return e.startIn(t, context.Background(), "", owner, j, cfg, ttl)
}

// kindJob is a test kind's job: compJob, or apartJob, which sends apart.
type kindJob interface {
	jobs.Job
	mem() *memStore
}

func (j *compJob) mem() *memStore { return j.memStore }

// startIn is start with the context the runner starts with (a Watcher's) and its kind's name.
func (e *env) startIn(t testing.TB, ctx context.Context, kind, owner string, kj kindJob, cfg jobs.Config, ttl time.Duration) *jobs.Runner {
	t.Helper()
	j := kj.mem()
	var r *jobs.Runner
	r = jobs.NewRunner(jobs.RunnerConfig{Kind: kind, Engine: cfg, Classify: jobs.BillingFault, Clock: clock.System(time.UTC), Log: e.log,
		Leases: e.db.NamedLeases(), Owner: owner, LeaseTTL: ttl, LeaseRenew: ttl / 5,
		Next: func(context.Context) ([]string, error) {
			j.mu.Lock()
			defer j.mu.Unlock()
			if j.finished {
				return nil, nil
			}
			return []string{"job"}, nil
		},
		Run: func(ctx context.Context, id string) error {
			done := j.running(owner)
			defer done()
			finished, err := r.Engine.Run(ctx, id, kj)
			if err != nil || !finished {
				return err
			}
			open, err := j.OpenChunks(ctx, id)
			j.mu.Lock()
			j.finished = len(open) == 0
			j.mu.Unlock()
			return err
		}})
	if err := r.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Stop(context.Background()) })
	return r
}

// apartJob is compJob sending apart (jobs.Apart): after its call, the answer is
// "written" (a pause of write, as a ledger's write takes time) while the next chunk's
// call may leave. It notes the calls in flight at once, the calls that left while an
// answer was being written, and a chunk saved closed before its answer was written.
type apartJob struct {
	*compJob
	write time.Duration

	mu        sync.Mutex
	inFlight  int
	most      int          // the most calls in flight at once
	writing   int          // answers being written now
	beside    int          // calls that left while an answer was being written
	written   map[int]bool // chunks whose answer is written
	earlySave []int        // chunks saved closed before their answer was written
}

func newApartJob(j *compJob, write time.Duration) *apartJob {
	return &apartJob{compJob: j, write: write, written: map[int]bool{}}
}

func (a *apartJob) SendApart(ctx context.Context, c *jobs.Chunk, items []*jobs.Item) (func(context.Context), error) {
	a.mu.Lock()
	a.inFlight++
	a.most = max(a.most, a.inFlight)
	if a.writing > 0 {
		a.beside++
	}
	a.mu.Unlock()
	err := a.compJob.Send(ctx, c, items)
	a.mu.Lock()
	a.inFlight--
	a.mu.Unlock()
	seq := c.Seq
	return func(context.Context) {
		a.mu.Lock()
		a.writing++
		a.mu.Unlock()
		time.Sleep(a.write)
		a.mu.Lock()
		a.writing--
		a.written[seq] = true
		a.mu.Unlock()
	}, err
}

func (a *apartJob) Send(ctx context.Context, c *jobs.Chunk, items []*jobs.Item) error {
	after, err := a.SendApart(ctx, c, items)
	after(ctx)
	return err
}

func (a *apartJob) SaveChunk(ctx context.Context, c *jobs.Chunk) error {
	if c.State == jobs.ChunkConfirmed {
		a.mu.Lock()
		if !a.written[c.Seq] {
			a.earlySave = append(a.earlySave, c.Seq)
		}
		a.mu.Unlock()
	}
	return a.compJob.SaveChunk(ctx, c)
}

// stopHard stops r at once: calls in flight are cut.
func stopHard(r *jobs.Runner) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_ = r.Stop(ctx)
}

// waitFinished waits until the job has ended.
func waitFinished(t testing.TB, m *memStore) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		m.mu.Lock()
		done := m.finished
		m.mu.Unlock()
		if done {
			return
		}
		if time.Now().After(deadline) {
			states, attempts, _ := m.sum()
			t.Fatalf("the job did not finish: items %v, %d sends", states, attempts)
		}
	}
}

// wire lets calls through to the sandbox, counting the batch calls; it can lose the
// answers of batches the sandbox applied (the engine hears nothing), hold each batch
// before it leaves, and note when each call left.
type wire struct {
	next    http.RoundTripper
	batches atomic.Int64
	lose    atomic.Int64
	delay   time.Duration
	mu      sync.Mutex
	left    []time.Time
}

func (w *wire) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodPost || !strings.HasSuffix(req.URL.Path, "/batch") {
		return w.next.RoundTrip(req)
	}
	w.batches.Add(1)
	w.mu.Lock()
	w.left = append(w.left, time.Now())
	w.mu.Unlock()
	if w.delay > 0 {
		time.Sleep(w.delay)
	}
	res, err := w.next.RoundTrip(req)
	if err == nil && res.StatusCode < 300 && w.lose.Add(-1) >= 0 {
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return nil, errors.New("connection reset by peer") // applied; the answer is lost
	}
	return res, err
}

// errUnavailable is the service's 503.
var errUnavailable = &billing.APIError{StatusCode: 503, Status: "Service Unavailable", Method: "GET", Path: "/bill"}
