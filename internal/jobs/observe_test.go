package jobs_test

import (
	"context"
	"sync"
	"testing"
	"time"

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
// it. Its census counts the jobs its Next lists: none once the job finished.
func TestWatcherHearsOfTheKind(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 2*time.Second, 10, false)
	inputs := e.components(20, 10)
	inputs[1][4].AccountCode = "KOPERASI" // refused by the service
	m := newMemStore(inputs)
	j := &compJob{memStore: m, inputs: inputs, client: e.client(t, nil, 2*time.Second, "issued")}
	w := &watcher{kinds: map[string]func(context.Context) (jobs.Census, error){}, states: map[jobs.State]int{}}
	e.startIn(t, jobs.WithWatcher(context.Background(), w), "components", "a", j, fast(2*time.Second), 5*time.Second)
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
