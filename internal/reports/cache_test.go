package reports_test

import (
	"context"
	"errors"
	"iter"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
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

// cachedService is the reports service over two bills, on a clock that starts at today and
// runs with the test's time: inside a synctest bubble, time.Sleep moves it at once.
func cachedService(t *testing.T) (*reports.Service, *countingSource, func() time.Time) {
	t.Helper()
	bills := []billing.Bill{
		{ComponentID: "1", NIS: "1", AccountCode: "SPP", Amount: 100, State: billing.StatePaid, AmountPaid: 100, PaidAt: today, Due: day(2027, 3, 10)},
		{ComponentID: "2", NIS: "1", AccountCode: "SPP", Amount: 200, State: billing.StateProvisioned, Due: day(2027, 3, 20), Expiry: day(2027, 5, 1)},
	}
	src := &countingSource{memSource: newMemSource(bills, jakarta)}
	start := time.Now()
	now := func() time.Time { return today.Add(time.Since(start)) }
	svc := reports.New(reports.Config{Source: src, Roster: memRoster{}, Location: jakarta, Now: now, CacheTTL: 5 * time.Minute})
	return svc, src, now
}

func TestCacheTTLAndRefresh(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		svc, src, _ := cachedService(t)
		ctx := context.Background()
		first, err := svc.Dashboard(ctx, false)
		if err != nil || first.Value.CollectedToday.Amount != 100 || !first.At.Equal(today) {
			t.Fatalf("first = %+v, %v", first, err)
		}
		time.Sleep(2 * time.Minute)
		again, _ := svc.Dashboard(ctx, false)
		if src.passes.Load() != 1 || !again.At.Equal(today) {
			t.Fatalf("within the TTL: %d passes, At %v", src.passes.Load(), again.At)
		}
		// A refresh asked for recomputes; one asked seconds after that does not.
		refreshed, _ := svc.Dashboard(ctx, true)
		if src.passes.Load() != 2 || !refreshed.At.Equal(today.Add(2*time.Minute)) {
			t.Fatalf("refresh: %d passes, At %v", src.passes.Load(), refreshed.At)
		}
		time.Sleep(time.Second)
		svc.Dashboard(ctx, true)
		if src.passes.Load() != 2 {
			t.Fatalf("a second refresh within seconds recomputed (%d passes)", src.passes.Load())
		}
		time.Sleep(5 * time.Minute)
		svc.Dashboard(ctx, false)
		if src.passes.Load() != 3 {
			t.Fatalf("after the TTL: %d passes, want 3", src.passes.Load())
		}
	})
}

// Twenty people opening the dashboard at once cost one pass over the bills: every caller
// waits for the one computation under way.
func TestCacheSingleflight(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
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
		// Every caller has reached the cache and waits: the one pass holds at the gate.
		synctest.Wait()
		if n := src.passes.Load(); n != 1 {
			t.Fatalf("%d passes started for 20 concurrent callers, want 1", n)
		}
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
	})
}

func TestCacheKeepsLastGoodOnFailure(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		svc, src, now := cachedService(t)
		ctx := context.Background()
		if _, err := svc.Dashboard(ctx, false); err != nil {
			t.Fatal(err)
		}
		boom := errors.New("upstream down")
		src.mu.Lock()
		src.fail = boom
		src.mu.Unlock()
		time.Sleep(6 * time.Minute)
		got, err := svc.Dashboard(ctx, false)
		if err != nil || !errors.Is(got.Warning, boom) || !got.At.Equal(today) || got.Value.CollectedToday.Amount != 100 {
			t.Fatalf("after a failed refresh: %+v, %v", got, err)
		}
		// Within the back-off the service is not asked again; the warning stays.
		passes := src.passes.Load()
		time.Sleep(10 * time.Second)
		got, _ = svc.Dashboard(ctx, false)
		if src.passes.Load() != passes || got.Warning == nil {
			t.Fatalf("asked again during back-off (%d passes) or lost the warning", src.passes.Load())
		}
		// After the back-off it is asked again (and fails again: the warning stays).
		time.Sleep(30 * time.Second)
		got, _ = svc.Dashboard(ctx, false)
		if src.passes.Load() != passes+1 || got.Warning == nil {
			t.Fatalf("after the back-off: %d passes (want %d), warning %v", src.passes.Load(), passes+1, got.Warning)
		}
		// Once it answers again the warning goes.
		src.mu.Lock()
		src.fail = nil
		src.mu.Unlock()
		got, _ = svc.Dashboard(ctx, true)
		if got.Warning != nil || !got.At.Equal(now()) {
			t.Fatalf("after recovery: %+v", got)
		}

		// Without any good figures, the error itself comes back.
		svc2, src2, _ := cachedService(t)
		src2.fail = boom
		if _, err := svc2.Dashboard(ctx, false); !errors.Is(err, boom) {
			t.Fatalf("first computation failing: %v", err)
		}
	})
}
