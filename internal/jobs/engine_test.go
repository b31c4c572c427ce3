package jobs_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/jobs"
	"github.com/sekolah/portal/internal/sandbox"
	"github.com/sekolah/portal/internal/store/storetest"
)

// TestMain runs six tests at once: they mostly wait out timeouts and settling.
func TestMain(m *testing.M) {
	storetest.SetParallel(6)
	m.Run()
}

// fast is an engine configuration that retries fast, settling after timeout.
func fast(timeout time.Duration) jobs.Config {
	return jobs.Config{Concurrency: 2, MaxAttempts: 40, RetryBase: 5 * time.Millisecond, RetryMax: 50 * time.Millisecond,
		WaitMax: 100 * time.Millisecond, Settle: timeout + 50*time.Millisecond, Look: 50 * time.Millisecond}
}

// TestExactlyOnceUnderFaultsAndRestart is the engine's promise: 800 components sent in
// batches while the service fails a fifth of the calls, applies some and never answers,
// loses two answers on purpose, and the instance is stopped hard in the middle and another
// started, end as exactly 800 components at the service: none missing, none twice.
// A kind that sends apart (jobs.Apart) keeps the same promise.
func TestExactlyOnceUnderFaultsAndRestart(t *testing.T) {
	t.Parallel()
	for _, apart := range []bool{false, true} {
		t.Run(map[bool]string{false: "send", true: "apart"}[apart], func(t *testing.T) {
			t.Parallel()
			exactlyOnceUnderFaultsAndRestart(t, apart)
		})
	}
}

func exactlyOnceUnderFaultsAndRestart(t *testing.T, apart bool) {
	timeout := 150 * time.Millisecond
	e := newEnv(t, timeout, 80, false)
	const rows, chunk = 800, 40
	inputs := e.components(rows, chunk)
	m := newMemStore(inputs)
	w1 := &wire{next: http.DefaultTransport}
	w1.lose.Store(2)
	e.sb.SetFaults(sandbox.Faults{ErrorRate: 0.2, Status: 503, TimeoutRate: 0.05, LatencyMS: 20})

	kind := func(j *compJob) kindJob {
		if apart {
			return newApartJob(j, 10*time.Millisecond)
		}
		return j
	}
	first := e.start(t, "instance-1", kind(&compJob{memStore: m, inputs: inputs, client: e.client(t, w1, timeout, "issued")}), fast(timeout), 5*time.Second)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if states, _, _ := m.sum(); states[jobs.Done] >= rows/4 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the job made no progress")
		}
	}
	stopHard(first)
	states, _, _ := m.sum()
	if m.finished || states[jobs.Done] == rows {
		t.Fatalf("the job finished before the restart (%v); the test would prove nothing", states)
	}
	t.Logf("stopped with items %v", states)

	e.start(t, "instance-2", kind(&compJob{memStore: m, inputs: inputs, client: e.client(t, nil, timeout, "issued")}), fast(timeout), 5*time.Second)
	waitFinished(t, m)
	e.sb.SetFaults(sandbox.Faults{})
	states, attempts, recognised := m.sum()
	if states[jobs.Done] != rows {
		t.Fatalf("items %v, want all %d done", states, rows)
	}
	names, twice := e.atService(t)
	if len(names) != rows || twice != 0 {
		t.Fatalf("at the service: %d components, %d twice; want exactly %d", len(names), twice, rows)
	}
	t.Logf("%d sends, %d items recognised after answers that did not come", attempts, recognised)
	if recognised < 2*chunk {
		t.Errorf("%d items recognised; the two lost answers alone were %d", recognised, 2*chunk)
	}
}

// TestApartWritesBesideTheNextCall: a kind sending apart has its answers written while the
// next chunks' calls are out, never more calls at once than Concurrency, and no chunk
// recorded done before its answer is written; every component reaches the service once.
func TestApartWritesBesideTheNextCall(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 2*time.Second, 20, false)
	const rows, chunk = 120, 10
	inputs := e.components(rows, chunk)
	m := newMemStore(inputs)
	w := &wire{next: http.DefaultTransport, delay: 30 * time.Millisecond}
	j := newApartJob(&compJob{memStore: m, inputs: inputs, client: e.client(t, w, 2*time.Second, "issued")}, 50*time.Millisecond)
	cfg := fast(2 * time.Second)
	cfg.Concurrency = 1 // one call at a time: a call beside a write is the engine's doing
	e.start(t, "a", j, cfg, 5*time.Second)
	waitFinished(t, m)
	j.mu.Lock()
	defer j.mu.Unlock()
	if states, _, _ := m.sum(); states[jobs.Done] != rows {
		t.Fatalf("items %v, want all %d done", states, rows)
	}
	if names, twice := e.atService(t); len(names) != rows || twice != 0 {
		t.Fatalf("at the service: %d components, %d twice; want exactly %d", len(names), twice, rows)
	}
	if j.most > 1 {
		t.Errorf("%d calls at once, want one at most", j.most)
	}
	if j.beside == 0 {
		t.Errorf("no call left while an answer was being written")
	}
	if len(j.earlySave) > 0 {
		t.Errorf("chunks %v recorded done before their answers were written", j.earlySave)
	}
	t.Logf("%d of %d calls left while an answer was being written; %d at once at most", j.beside, rows/chunk, j.most)
}

// TestStopLeavesNothingSentUnsent: a chunk marked sent while it waits for a call's slot
// (a kind sending apart runs more chunks than calls) is pending again when the worker
// stops before its call leaves: nothing is left sent that was not, to be read at the
// service a settling time later. Another instance then ends the job, each component once.
func TestStopLeavesNothingSentUnsent(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 2*time.Second, 20, false)
	const rows, chunk = 80, 10
	inputs := e.components(rows, chunk)
	m := newMemStore(inputs)
	cfg := fast(2 * time.Second)
	cfg.Concurrency = 1
	w := &wire{next: http.DefaultTransport, delay: 80 * time.Millisecond}
	first := e.start(t, "a", newApartJob(&compJob{memStore: m, inputs: inputs, client: e.client(t, w, 2*time.Second, "issued")}, 0), cfg, 5*time.Second)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if states, _, _ := m.sum(); states[jobs.Done] >= 2*chunk {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the job made no progress")
		}
	}
	if err := first.Stop(context.Background()); err != nil { // graceful: the call out ends
		t.Fatal(err)
	}
	states, _, _ := m.sum()
	if states[jobs.Done] == rows {
		t.Fatalf("the job finished before the stop (%v); the test would prove nothing", states)
	}
	if states[jobs.Sent] != 0 {
		t.Fatalf("after a graceful stop, items %v: %d left sent that never left", states, states[jobs.Sent])
	}
	e.start(t, "b", &compJob{memStore: m, inputs: inputs, client: e.client(t, nil, 2*time.Second, "issued")}, cfg, 5*time.Second)
	waitFinished(t, m)
	if names, twice := e.atService(t); len(names) != rows || twice != 0 {
		t.Fatalf("at the service: %d components, %d twice; want exactly %d", len(names), twice, rows)
	}
}

// TestTwoInstancesOneJob: two instances on one database both find the job; only the one
// holding its lease runs it (renewing the lease for longer than a lease lasts: the other
// never runs it meanwhile), and every component reaches the service once. On SQLite and
// on PostgreSQL.
func TestTwoInstancesOneJob(t *testing.T) {
	t.Parallel()
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, 2*time.Second, 20, engine == "postgres")
			const rows, chunk = 200, 20
			inputs := e.components(rows, chunk)
			m := newMemStore(inputs)
			cfg := fast(2 * time.Second)
			cfg.Concurrency = 1
			// Ten batches of 120 ms: longer than a lease of 500 ms, which holds only renewed.
			var wires [2]*wire
			for i := range wires {
				wires[i] = &wire{next: http.DefaultTransport, delay: 120 * time.Millisecond}
				e.start(t, []string{"a", "b"}[i], &compJob{memStore: m, inputs: inputs, client: e.client(t, wires[i], 2*time.Second, "issued")},
					cfg, 500*time.Millisecond)
			}
			waitFinished(t, m)
			if x, y, ok := m.overlapping(); ok {
				t.Errorf("%s ran the job %v–%v while %s ran it %v–%v", x.owner, x.start.Format("15:04:05.000"),
					x.end.Format("15:04:05.000"), y.owner, y.start.Format("15:04:05.000"), y.end.Format("15:04:05.000"))
			}
			a, b := wires[0].batches.Load(), wires[1].batches.Load()
			if a+b != rows/chunk || a != 0 && b != 0 {
				t.Errorf("batch calls per instance %d and %d; want all %d from one", a, b, rows/chunk)
			}
			if names, twice := e.atService(t); len(names) != rows || twice != 0 {
				t.Errorf("at the service: %d components, %d twice; want exactly %d", len(names), twice, rows)
			}
		})
	}
}

// TestLapsedLeaseIsTakenOver: a job whose lease an instance that died still holds (it
// never renews nor releases it) is run by another once the lease lapses, not before.
func TestLapsedLeaseIsTakenOver(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 2*time.Second, 10, false)
	inputs := e.components(30, 10)
	m := newMemStore(inputs)
	ttl := 600 * time.Millisecond
	now := time.Now()
	if ok, err := e.db.NamedLeases().Claim(context.Background(), "job", "dead-instance", now.Add(ttl), now); err != nil || !ok {
		t.Fatalf("claim for the dead instance: %v %v", ok, err)
	}
	w := &wire{next: http.DefaultTransport}
	e.start(t, "alive", &compJob{memStore: m, inputs: inputs, client: e.client(t, w, 2*time.Second, "issued")}, fast(2*time.Second), ttl)
	waitFinished(t, m)
	w.mu.Lock()
	firstCall := w.left[0]
	w.mu.Unlock()
	if firstCall.Before(now.Add(ttl)) {
		t.Errorf("sent %v after the dead instance's claim, before its lease of %v lapsed", firstCall.Sub(now), ttl)
	}
	if names, twice := e.atService(t); len(names) != 30 || twice != 0 {
		t.Errorf("at the service: %d components, %d twice; want exactly 30", len(names), twice)
	}
}

// TestRefusedAndDenied: items the service refuses fail with its words and the rest of their
// batch is sent; a service that refuses the portal's credentials leaves the items unsent
// until a person retries, saying why.
func TestRefusedAndDenied(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 2*time.Second, 10, false)
	inputs := e.components(20, 10)
	inputs[0][3].AccountCode = "KOPERASI" // an account code the service does not know
	m := newMemStore(inputs)
	e.start(t, "a", &compJob{memStore: m, inputs: inputs, client: e.client(t, nil, 2*time.Second, "issued")}, fast(2*time.Second), 5*time.Second)
	waitFinished(t, m)
	states, _, _ := m.sum()
	it := m.chunks[0].Items[3]
	if states[jobs.Done] != 19 || states[jobs.Failed] != 1 || it.State != jobs.Failed || it.Problem.Code != jobs.ProblemRefused ||
		it.Problem.Arg == "" || m.chunks[0].State != jobs.ChunkFailed || m.chunks[1].State != jobs.ChunkConfirmed {
		t.Fatalf("items %v; the refused one %+v; chunks %s, %s", states, it, m.chunks[0].State, m.chunks[1].State)
	}
	if names, _ := e.atService(t); len(names) != 19 {
		t.Errorf("%d components at the service, want 19", len(names))
	}

	// A kind that cannot tell which item was refused: the whole call fails, with the
	// service's words, and is not sent again.
	blind := newMemStore(inputs)
	e.start(t, "c", &compJob{memStore: blind, inputs: inputs, client: e.client(t, nil, 2*time.Second, "issued"), blind: true},
		fast(2*time.Second), 5*time.Second)
	waitFinished(t, blind)
	c0 := blind.chunks[0]
	if states, _, _ := blind.sum(); states[jobs.Failed] != 10 || c0.Attempts != 1 || c0.Items[0].Problem.Code != jobs.ProblemRefused ||
		!strings.Contains(c0.Items[0].Problem.Arg, "account_code") {
		t.Errorf("refused, no item named: items %v, %d sends, problem %+v", states, c0.Attempts, c0.Items[0].Problem)
	}

	denied := newMemStore(e.components(5, 5))
	e.start(t, "b", &compJob{memStore: denied, inputs: e.components(5, 5), client: e.client(t, nil, 2*time.Second, "not-the-password")},
		fast(2*time.Second), 5*time.Second)
	waitFinished(t, denied)
	c := denied.chunks[0]
	for _, it := range c.Items {
		if it.State != jobs.Failed || it.Problem != (jobs.Problem{Code: jobs.ProblemUnsent, Arg: jobs.UnsentDenied}) {
			t.Errorf("with the credentials refused: %+v", it)
		}
	}
	if c.State != jobs.ChunkFailed || c.Attempts != 1 {
		t.Errorf("denied chunk: %s after %d sends; want given up after one", c.State, c.Attempts)
	}
}

// TestWaitsForTheServiceThenGivesUp: a service that stops answering is waited for, trying
// again at least every WaitMax and saying since when, with a person's hurry making it try
// at once; after WaitFor the unsent items are given up until a retry. In a synctest
// bubble: hours pass in no time.
func TestWaitsForTheServiceThenGivesUp(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 5*time.Second, 5, false)
	synctest.Test(t, func(t *testing.T) {
		inputs := e.components(10, 5)
		m := newMemStore(inputs)
		w := &wire{next: &http.Transport{DisableKeepAlives: true}} // an idle connection would keep the bubble awake
		cfg := jobs.Config{RetryBase: time.Second, RetryMax: 15 * time.Second, WaitFor: 2 * time.Hour, WaitMax: 5 * time.Minute,
			Settle: time.Second, Look: 10 * time.Second}
		e.sb.SetFaults(sandbox.Faults{ErrorRate: 1, Status: 503})
		defer e.sb.SetFaults(sandbox.Faults{})
		in := e.start(t, "a", &compJob{memStore: m, inputs: inputs, client: e.client(t, w, 5*time.Second, "issued")}, cfg, time.Minute)
		start := time.Now()
		time.Sleep(time.Hour)
		since, _, _ := m.Waiting(context.Background(), "job")
		if since.IsZero() || since.Sub(start) > time.Minute {
			t.Fatalf("after an hour down: waiting since %v (down since %v)", since, start)
		}
		w.mu.Lock()
		calls, longest := len(w.left), time.Duration(0)
		for i := 1; i < len(w.left); i++ {
			longest = max(longest, w.left[i].Sub(w.left[i-1]))
		}
		w.mu.Unlock()
		if calls < 60/5 || longest > 5*time.Minute+15*time.Second {
			t.Fatalf("%d tries in an hour, the longest pause %v; want one at least every 5 minutes", calls, longest)
		}

		// A person asks it to try again now: it does, well before its pause would end.
		m.mu.Lock()
		m.hurry = time.Now()
		m.mu.Unlock()
		in.Wake()
		time.Sleep(5 * time.Second)
		w.mu.Lock()
		hurried := len(w.left) > calls
		w.mu.Unlock()
		if !hurried {
			t.Error("a hurry did not make the job try again")
		}

		time.Sleep(time.Hour + time.Minute)
		waitFinished(t, m)
		states, _, _ := m.sum()
		since, _, _ = m.Waiting(context.Background(), "job")
		if states[jobs.Failed] != 10 || !since.IsZero() {
			t.Fatalf("after waiting two hours: items %v, waiting since %v", states, since)
		}
		for _, c := range m.chunks {
			if c.State != jobs.ChunkFailed || c.Items[0].Problem != (jobs.Problem{Code: jobs.ProblemUnsent, Arg: jobs.UnsentDown}) {
				t.Errorf("chunk %d: %s, %+v", c.Seq, c.State, c.Items[0].Problem)
			}
		}
	})
}

// TestPaceSpacesTheCalls: with Pace, the calls leave at least that far apart, whatever
// the chunks in flight (a rate limit of the service's).
func TestPaceSpacesTheCalls(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 5*time.Second, 5, false)
	synctest.Test(t, func(t *testing.T) {
		inputs := e.components(12, 3)
		m := newMemStore(inputs)
		m.oneByOne = true // one call per item, as messages are sent
		w := &wire{next: &http.Transport{DisableKeepAlives: true}}
		cfg := jobs.Config{Concurrency: 3, Pace: time.Second, Settle: time.Second}
		e.start(t, "a", &compJob{memStore: m, inputs: inputs, client: e.client(t, w, 5*time.Second, "issued")}, cfg, time.Minute)
		waitFinished(t, m)
		w.mu.Lock()
		defer w.mu.Unlock()
		if len(w.left) != 12 {
			t.Fatalf("%d calls, want 12", len(w.left))
		}
		for i := 1; i < len(w.left); i++ {
			if d := w.left[i].Sub(w.left[i-1]); d < time.Second {
				t.Errorf("calls %d and %d left %v apart, want a second at least", i-1, i, d)
			}
		}
	})
}

// TestTryWaitsForTheService: a step before the sending (Engine.Try) is tried again while
// the service does not answer, waiting for it, and returns once it answers.
func TestTryWaitsForTheService(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		w := jobs.NewWorker()
		if err := w.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = w.Stop(context.Background()) }()
		eng := jobs.NewEngine(jobs.Config{WaitFor: time.Hour}, w, jobs.BillingFault, clock.System(time.UTC), quiet)
		m := newMemStore(nil)
		tries := 0
		start := time.Now()
		err := eng.Try(context.Background(), "job", m, func(context.Context) error {
			if tries++; time.Since(start) < 20*time.Minute {
				return errUnavailable
			}
			return nil
		})
		if err != nil || time.Since(start) < 20*time.Minute || time.Since(start) > 26*time.Minute {
			t.Fatalf("Try: %v after %v and %d tries", err, time.Since(start), tries)
		}
		if since, _, _ := m.Waiting(context.Background(), "job"); !since.IsZero() {
			t.Errorf("still waiting since %v after the service answered", since)
		}
		// Down for longer than WaitFor: the last error.
		start = time.Now()
		if err := eng.Try(context.Background(), "job", m, func(context.Context) error { return errUnavailable }); err != errUnavailable ||
			time.Since(start) < time.Hour {
			t.Fatalf("Try with the service down: %v after %v", err, time.Since(start))
		}
	})
}
