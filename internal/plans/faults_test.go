package plans_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/plans"
	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/sandbox"
)

// loser lets the sandbox apply batches of components but loses the answers of the first
// few: the connection is cut once the batch is stored, so the portal hears nothing of
// what happened (the case that must not end in a component made twice).
type loser struct {
	lose atomic.Int64
}

func (l *loser) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/bill_component/batch" {
			next.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		if rec.Code == http.StatusCreated && l.lose.Add(-1) >= 0 {
			panic(http.ErrAbortHandler) // applied; the answer is lost
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	})
}

// TestApplyFaultsAndRestart is the apply job's promise: a year of SPP for 100 students
// (1.200 components) sent while the service fails a fifth of the calls with 503, applies
// some and then never answers, loses the answers of two applied batches, and the
// instance running the job is stopped hard in the middle and another takes it over, ends
// with every component at the service exactly once.
func TestApplyFaultsAndRestart(t *testing.T) {
	t.Parallel()
	engines(t, testApplyFaultsAndRestart)
}

func testApplyFaultsAndRestart(t *testing.T, postgres bool) {
	l := &loser{}
	l.lose.Store(2)
	timeout := 300 * time.Millisecond
	p, _ := school(t, portaltest.Options{Upstream: l.wrap, UpstreamTimeout: timeout, Postgres: postgres,
		Plans: func(c *plans.Config) {
			c.ChunkSize, c.Concurrency = 50, 3
			c.LeaseTTL, c.LeaseRenew = 2*time.Second, 300*time.Millisecond
			c.Settle = timeout + 100*time.Millisecond
		}}, []string{"Kelas 7A", "Kelas 7B", "Kelas 8A", "Kelas 8B"}, 25)
	plan := create(t, p, sppForm())
	pv, probs, err := p.App.Plans.Preview(context.Background(), plan, plans.Selection{Grades: []string{"7", "8"}, From: plan.From, To: plan.To})
	if err != nil || len(probs) > 0 || pv.Create != 1200 {
		t.Fatalf("preview: %d to create, %v %v", pv.Create, probs, err)
	}
	p.Sandbox.SetFaults(sandbox.Faults{ErrorRate: 0.2, Status: 503, TimeoutRate: 0.05})
	id, err := p.App.Plans.Submit(context.Background(), finance, pv)
	if err != nil {
		t.Fatal(err)
	}
	// Stop the instance hard once a third is through: its calls in flight are cut.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		j, err := p.App.Plans.Job(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if j.Done >= 400 {
			break
		}
		if !plans.Running(j.State) || time.Now().After(deadline) {
			t.Fatalf("the job did not get a third through before the stop: %+v", j)
		}
	}
	hard, cancel := context.WithCancel(context.Background())
	cancel()
	_ = p.App.Plans.Stop(hard)
	mid, _ := p.App.Plans.Job(context.Background(), id)
	if !plans.Running(mid.State) {
		t.Fatalf("the job ended before the stop (%s): the test would prove nothing", mid.State)
	}
	t.Logf("stopped with %d of 1200 done", mid.Done)

	q := p.Instance(t)
	done := waitJob(t, q, id)
	p.Sandbox.SetFaults(sandbox.Faults{})
	if done.State != plans.StateDone || done.Done != 1200 || done.Failed != 0 {
		t.Fatalf("job ended %s: done %d, failed %d, skipped %d", done.State, done.Done, done.Failed, done.Skipped)
	}
	got, twice := atService(t, p, plan.Code)
	if len(got) != 1200 || twice != 0 {
		t.Fatalf("at the service: %d distinct, %d twice; want exactly 1200", len(got), twice)
	}
	if done.Recognised < 100 {
		t.Errorf("%d components recognised after lost answers; the two lost batches alone were 100", done.Recognised)
	}
	t.Logf("recognised %d after lost answers", done.Recognised)
	items, err := q.App.Plans.Items(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		if it.ComponentID == "" || got[it.NIS+"|"+it.Period].ComponentID != it.ComponentID {
			t.Fatalf("item %d (%s %s) records component %q, the service has %q", it.Seq, it.NIS, it.Period, it.ComponentID,
				got[it.NIS+"|"+it.Period].ComponentID)
		}
	}
}
