package jobs_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/jobs"
)

// TestChunkChanged: only the changed items, grouped by state and problem in the order
// first met; a sent group carries the chunk's SentAt, the others the time given.
func TestChunkChanged(t *testing.T) {
	sent, now := time.Date(2026, 11, 28, 1, 0, 0, 0, time.UTC), time.Date(2026, 11, 28, 1, 0, 5, 0, time.UTC)
	c := &jobs.Chunk{SentAt: sent}
	for k := 1; k <= 6; k++ {
		c.Items = append(c.Items, jobs.Item{Key: k})
	}
	refused := func(why string) jobs.Decision {
		return jobs.Decision{State: jobs.Failed, Problem: jobs.Problem{Code: jobs.ProblemRefused, Arg: why}}
	}
	c.Decide(&c.Items[0], jobs.Decision{State: jobs.Done})
	c.Decide(&c.Items[1], refused("NIS tidak dikenal"))
	c.Decide(&c.Items[2], jobs.Decision{State: jobs.Done})
	c.Items[3].State = jobs.Sent
	c.Items[3].Touch()
	c.Decide(&c.Items[4], refused("sudah lunas"))
	// Items[5] is left as it was: not written.
	text := func(p jobs.Problem) string { return p.Arg }
	want := []jobs.Changes{
		{State: jobs.Done, Keys: []int{1, 3}, At: now},
		{State: jobs.Failed, Problem: "NIS tidak dikenal", Keys: []int{2}, At: now},
		{State: jobs.Sent, Keys: []int{4}, At: sent},
		{State: jobs.Failed, Problem: "sudah lunas", Keys: []int{5}, At: now},
	}
	if got := c.Changed(text, now); !reflect.DeepEqual(got, want) {
		t.Fatalf("changed:\n got %+v\nwant %+v", got, want)
	}
}
