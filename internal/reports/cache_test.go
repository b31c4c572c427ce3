package reports_test

import (
	"context"
	"errors"
	"iter"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/reports"
)

// countingSource counts passes over the bills; it can be made to fail or to wait.
type countingSource struct {
	*memSource
	passes atomic.Int32
	mu     sync.Mutex
	fail   error
	gate   chan struct{} // when set, a pass waits for it to close
}

func (c *countingSource) All(ctx context.Context, q billing.Query) iter.Seq2[billing.Bill, error] {
	return func(yield func(billing.Bill, error) bool) {
		c.passes.Add(1)
		c.mu.Lock()
		fail, gate := c.fail, c.gate
		c.mu.Unlock()
		if gate != nil {
			<-gate
		}
		if fail != nil {
			yield(billing.Bill{}, fail)
			return
		}
		for b, err := range c.memSource.All(ctx, q) {
			if !yield(b, err) {
				return
			}
		}
	}
}

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func cachedService(t *testing.T) (*reports.Service, *countingSource, *clock) {
	t.Helper()
	bills := []billing.Bill{
		{ComponentID: "1", NIS: "1", AccountCode: "SPP", Amount: 100, State: billing.StatePaid, AmountPaid: 100, PaidAt: today, Due: day(2027, 3, 10)},
		{ComponentID: "2", NIS: "1", AccountCode: "SPP", Amount: 200, State: billing.StateProvisioned, Due: day(2027, 3, 20), Expiry: day(2027, 5, 1)},
	}
	src := &countingSource{memSource: newMemSource(bills, jakarta)}
	clk := &clock{t: today}
	svc := reports.New(reports.Config{Source: src, Roster: memRoster{}, Location: jakarta, Now: clk.now, CacheTTL: 5 * time.Minute})
	return svc, src, clk
}

func TestCacheTTLAndRefresh(t *testing.T) {
	svc, src, clk := cachedService(t)
	ctx := context.Background()
	first, err := svc.Dashboard(ctx, false)
	if err != nil || first.Value.CollectedToday.Amount != 100 || !first.At.Equal(today) {
		t.Fatalf("first = %+v, %v", first, err)
	}
	clk.add(2 * time.Minute)
	again, _ := svc.Dashboard(ctx, false)
	if src.passes.Load() != 1 || !again.At.Equal(today) {
		t.Fatalf("within the TTL: %d passes, At %v", src.passes.Load(), again.At)
	}
	// A refresh asked for recomputes; one asked seconds after that does not.
	refreshed, _ := svc.Dashboard(ctx, true)
	if src.passes.Load() != 2 || !refreshed.At.Equal(today.Add(2*time.Minute)) {
		t.Fatalf("refresh: %d passes, At %v", src.passes.Load(), refreshed.At)
	}
	clk.add(time.Second)
	svc.Dashboard(ctx, true)
	if src.passes.Load() != 2 {
		t.Fatalf("a second refresh within seconds recomputed (%d passes)", src.passes.Load())
	}
	clk.add(5 * time.Minute)
	svc.Dashboard(ctx, false)
	if src.passes.Load() != 3 {
		t.Fatalf("after the TTL: %d passes, want 3", src.passes.Load())
	}
}

func TestCacheSingleflight(t *testing.T) {
	svc, src, _ := cachedService(t)
	gate := make(chan struct{})
	src.mu.Lock()
	src.gate = gate
	src.mu.Unlock()
	var wg sync.WaitGroup
	results := make([]int64, 20)
	for i := range results {
		wg.Go(func() {
			got, err := svc.Dashboard(context.Background(), i%2 == 0)
			if err != nil {
				t.Error(err)
			}
			results[i] = got.Value.NotYetDue.Amount
		})
	}
	// Let every caller reach the cache before the one pass finishes.
	for src.passes.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond)
	close(gate)
	wg.Wait()
	if n := src.passes.Load(); n != 1 {
		t.Fatalf("%d passes for 20 concurrent callers, want 1", n)
	}
	for i, v := range results {
		if v != 200 {
			t.Fatalf("caller %d got %d", i, v)
		}
	}
}

func TestCacheKeepsLastGoodOnFailure(t *testing.T) {
	svc, src, clk := cachedService(t)
	ctx := context.Background()
	if _, err := svc.Dashboard(ctx, false); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("upstream down")
	src.mu.Lock()
	src.fail = boom
	src.mu.Unlock()
	clk.add(6 * time.Minute)
	got, err := svc.Dashboard(ctx, false)
	if err != nil || !errors.Is(got.Warning, boom) || !got.At.Equal(today) || got.Value.CollectedToday.Amount != 100 {
		t.Fatalf("after a failed refresh: %+v, %v", got, err)
	}
	// Within the back-off the service is not asked again; the warning stays.
	passes := src.passes.Load()
	clk.add(10 * time.Second)
	got, _ = svc.Dashboard(ctx, false)
	if src.passes.Load() != passes || got.Warning == nil {
		t.Fatalf("asked again during back-off (%d passes) or lost the warning", src.passes.Load())
	}
	// Once it answers again the warning goes.
	src.mu.Lock()
	src.fail = nil
	src.mu.Unlock()
	got, _ = svc.Dashboard(ctx, true)
	if got.Warning != nil || !got.At.Equal(clk.now()) {
		t.Fatalf("after recovery: %+v", got)
	}

	// Without any good figures, the error itself comes back.
	svc2, src2, _ := cachedService(t)
	src2.fail = boom
	if _, err := svc2.Dashboard(ctx, false); !errors.Is(err, boom) {
		t.Fatalf("first computation failing: %v", err)
	}
}
