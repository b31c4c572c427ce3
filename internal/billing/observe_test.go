package billing

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/sekolah/portal/internal/sandbox"
)

// Config.Observe hears of every call once it ended, named by the client's method (never
// the URL, which carries a NIS), with the last answer's status, the error and how many
// requests it sent: a GET the service failed is tried again and says so.
func TestObserveCalls(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var calls []Call
	e := setup(t, func(_ *sandbox.Options, c *Config) {
		c.MaxAttempts = 3
		c.Observe = func(call Call) {
			mu.Lock()
			defer mu.Unlock()
			calls = append(calls, call)
		}
	})
	ctx := context.Background()
	if _, err := e.c.CreateStudent(ctx, Student{NIS: "26270001", Name: "Ani"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.Student(ctx, "99999999"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown student: %v", err)
	}
	e.srv.SetFaults(sandbox.Faults{ErrorRate: 1, Status: 503})
	_, failed := e.c.Search(ctx, Query{})
	e.srv.SetFaults(sandbox.Faults{})
	for range e.c.AllStudents(ctx, StudentQuery{}) {
	}
	mu.Lock()
	defer mu.Unlock()
	want := []struct {
		endpoint string
		status   int
		attempts int
		err      error
	}{
		{"CreateStudent", 201, 1, nil},
		{"Student", 404, 1, ErrNotFound},
		{"Search", 503, 3, ErrUnavailable},
		{"AllStudents", 200, 1, nil}, // the page with the student
		{"AllStudents", 200, 1, nil}, // the empty page that ends the listing
	}
	if len(calls) != len(want) {
		t.Fatalf("observed %d calls, want %d: %+v", len(calls), len(want), calls)
	}
	for i, w := range want {
		c := calls[i]
		if c.Endpoint != w.endpoint || c.Status != w.status || c.Attempts != w.attempts ||
			(w.err == nil) != (c.Err == nil) || w.err != nil && !errors.Is(c.Err, w.err) {
			t.Errorf("call %d = %+v, want %+v", i, c, w)
		}
	}
	if !errors.Is(failed, ErrUnavailable) || !errors.Is(calls[2].Err, ErrUnavailable) {
		t.Errorf("the failed search's error: %v / %v", failed, calls[2].Err)
	}
	if slices.ContainsFunc(calls, func(c Call) bool { return c.Duration < 0 }) {
		t.Errorf("a negative duration: %+v", calls)
	}
}
