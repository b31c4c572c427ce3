package jobs_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/jobs"
)

// watcher records what a Watcher is told.
type watcher struct {
	mu     sync.Mutex
	kinds  map[string]func(context.Context) (jobs.Census, error)
	states map[jobs.State]int
}

func (w *watcher) Kind(kind string, census func(context.Context) (jobs.Census, error)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.kinds[kind] = census
}

func (w *watcher) Items(kind string, s jobs.State, n int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if kind == "components" {
		w.states[s] += n
	}
}

// A runner started with a Watcher in its context tells it of its kind, with the census of
// its jobs, and of every item its engine sends and decides; the kind writes nothing for
// it. Its census counts the jobs its Next lists.
func TestWatcherHearsOfTheKind(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 2*time.Second, 10, false)
	inputs := e.components(20, 10)
	inputs[1][4].AccountCode = "KOPERASI" // refused by the service
	m := newMemStore(inputs)
	j := &compJob{memStore: m, inputs: inputs, client: e.client(t, nil, 2*time.Second, "issued")}
	w := &watcher{kinds: map[string]func(context.Context) (jobs.Census, error){}, states: map[jobs.State]int{}}
	var r *jobs.Runner
	r = jobs.NewRunner(jobs.RunnerConfig{Kind: "components", Engine: fast(2 * time.Second), Classify: jobs.BillingFault,
		Clock: clock.System(time.UTC), Log: e.log, Leases: e.db.NamedLeases(), Owner: "a", LeaseTTL: 5 * time.Second, LeaseRenew: time.Second,
		Next: func(context.Context) ([]string, error) {
			j.mu.Lock()
			defer j.mu.Unlock()
			if j.finished {
				return nil, nil
			}
			return []string{"job"}, nil
		},
		Run: func(ctx context.Context, id string) error {
			finished, err := r.Engine.Run(ctx, id, j)
			if err != nil || !finished {
				return err
			}
			j.mu.Lock()
			j.finished = true
			j.mu.Unlock()
			return nil
		}})
	if c, err := r.Census(context.Background()); err != nil || c != (jobs.Census{Queued: 1}) {
		t.Fatalf("census before the start: %+v %v", c, err)
	}
	if err := r.Start(jobs.WithWatcher(context.Background(), w)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Stop(context.Background()) })
	waitFinished(t, m)
	w.mu.Lock()
	census, states := w.kinds["components"], w.states
	w.mu.Unlock()
	if census == nil {
		t.Fatalf("the watcher was not told of the kind: %v", w.kinds)
	}
	if c, err := census(context.Background()); err != nil || c != (jobs.Census{}) {
		t.Errorf("census once the job finished: %+v %v", c, err)
	}
	// The refused batch of ten was sent once, the nine the service did not name again.
	if states[jobs.Done] != 19 || states[jobs.Failed] != 1 || states[jobs.Sent] != 29 {
		t.Errorf("items told: %v; want 19 done, 1 failed, 29 sent", states)
	}
}
