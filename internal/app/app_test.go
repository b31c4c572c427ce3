package app

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

// recorder is a worker that notes its starts and stops.
type recorder struct {
	name string
	log  *[]string
	fail bool
}

func (r recorder) Start(context.Context) error {
	if r.fail {
		return errors.New("cannot start")
	}
	*r.log = append(*r.log, "start "+r.name)
	return nil
}

func (r recorder) Stop(context.Context) error {
	*r.log = append(*r.log, "stop "+r.name)
	return nil
}

func TestStartAndStopEveryWorker(t *testing.T) {
	t.Parallel()
	var log []string
	a := &App{workers: []Worker{recorder{"uploads", &log, false}, recorder{"roster", &log, false}, recorder{"signins", &log, false}}}
	if err := a.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := a.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	want := []string{"start uploads", "start roster", "start signins", "stop signins", "stop roster", "stop uploads"}
	if !slices.Equal(log, want) {
		t.Fatalf("log = %v, want %v", log, want)
	}

	// A worker that cannot start leaves none of the others running.
	log = nil
	a = &App{workers: []Worker{recorder{"uploads", &log, false}, recorder{"roster", &log, true}, recorder{"signins", &log, false}}}
	if err := a.Start(t.Context()); err == nil {
		t.Fatal("no error from a worker that cannot start")
	}
	if want := []string{"start uploads", "stop uploads"}; !slices.Equal(log, want) {
		t.Fatalf("log = %v, want %v", log, want)
	}
}

// Stop returns only after a run under way has returned.
func TestPeriodicStopWaitsForTheRun(t *testing.T) {
	t.Parallel()
	started := make(chan struct{})
	var runs atomic.Int32
	var finished atomic.Bool
	p := &Periodic{Name: "prune", Interval: time.Hour, Run: func(ctx context.Context) error {
		if runs.Add(1) == 1 {
			close(started)
		}
		<-ctx.Done()
		finished.Store(true)
		return ctx.Err()
	}}
	if err := p.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := p.Start(t.Context()); err == nil {
		t.Fatal("started twice")
	}
	<-started
	if err := p.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !finished.Load() || runs.Load() != 1 {
		t.Fatalf("Stop returned before the run ended (finished %v, %d runs)", finished.Load(), runs.Load())
	}
}
