package store_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/sekolah/portal/internal/store"
)

// TestTakeSequenceNumber: numbers taken at once from several connections (instances
// sharing the database) are 1…n, each once; another scope counts on its own.
func TestTakeSequenceNumber(t *testing.T) {
	eachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		const workers, each = 4, 25
		var (
			mu  sync.Mutex
			got []int64
			wg  sync.WaitGroup
		)
		for range workers {
			wg.Go(func() {
				for range each {
					n, err := db.TakeSequenceNumber(ctx, "registration.public.number.PPDB.2026")
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					got = append(got, n)
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		slices.Sort(got)
		for i, n := range got {
			if n != int64(i+1) {
				t.Fatalf("numbers taken: %v", got)
			}
		}
		if len(got) != workers*each {
			t.Fatalf("%d numbers, want %d", len(got), workers*each)
		}
		if n, err := db.TakeSequenceNumber(ctx, "registration.public.number.PPDB.2027"); err != nil || n != 1 {
			t.Fatalf("a new year's first number: %d %v", n, err)
		}
	})
}
