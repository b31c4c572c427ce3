package ledger

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/store/storetest"
)

// BenchmarkIteratorGrowth reads a month of n payments (Payments) and the same components
// by their three due days (All over a due range) from a ledger without planner
// statistics, at three sizes. ns/row is the time per row read: it stays about the same
// from 25,000 to 100,000 rows when each page costs what its rows cost, and grows with n
// when every page reads or sorts the whole range again (the regression this guards
// against: 25k 1.0 s, 50k 3.4 s, 100k 12 s for the payments alone).
func BenchmarkIteratorGrowth(b *testing.B) {
	march := func(d int) time.Time { return time.Date(2027, 3, d, 0, 0, 0, 0, time.UTC) }
	for _, n := range []int{25_000, 50_000, 100_000} {
		l := growthLedger(b, n)
		ctx := context.Background()
		perRow := func(b *testing.B, read func() int) {
			b.ReportAllocs()
			for b.Loop() {
				if got := read(); got != n {
					b.Fatalf("read %d rows, want %d", got, n)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/row")
		}
		b.Run(fmt.Sprintf("payments/rows=%d", n), func(b *testing.B) {
			perRow(b, func() int {
				got := 0
				for _, err := range l.Payments(ctx, march(1), march(31), "") {
					if err != nil {
						b.Fatal(err)
					}
					got++
				}
				return got
			})
		})
		b.Run(fmt.Sprintf("due-range/rows=%d", n), func(b *testing.B) {
			perRow(b, func() int {
				got := 0
				for _, err := range l.All(ctx, billing.Query{DueFrom: march(1), DueTo: march(3)}) {
					if err != nil {
						b.Fatal(err)
					}
					got++
				}
				return got
			})
		})
	}
}

// growthLedger is a SQLite ledger of n components by 4,000 students, each due on one of
// the first three days of March 2027 and paid during March at a random instant, loaded
// as the portal's writes load it (Upsert) and never analysed.
func growthLedger(b *testing.B, n int) *Ledger {
	b.Helper()
	ctx := context.Background()
	l, err := New(ctx, Config{DB: storetest.OpenTest(b),
		Clock: clock.Fixed(time.Date(2027, 4, 1, 3, 0, 0, 0, time.UTC), i18n.Jakarta())})
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(uint64(n), 7))
	bills := make([]billing.Bill, 0, 5000)
	for i := range n {
		due := time.Date(2027, 3, 1+rng.IntN(3), 0, 0, 0, 0, time.UTC)
		paid := time.Date(2027, 3, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(rng.Int64N(int64(30 * 24 * time.Hour))))
		created := time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(rng.Int64N(int64(200 * 24 * time.Hour))))
		bills = append(bills, billing.Bill{
			ComponentID: strconv.Itoa(i), NIS: fmt.Sprintf("2526%04d", rng.IntN(4000)), StudentName: "Siswa",
			AccountCode: "SPP", Name: "SPP Maret", Amount: 450_000, Penalty: 25_000, Due: due, Expiry: due.AddDate(0, 3, 0),
			State: billing.StatePaid, AmountPaid: 450_000, PaidAt: paid, RefNumber: "R" + strconv.Itoa(i),
			CreatedAt: created, UpdatedAt: created,
		})
		if len(bills) == cap(bills) || i == n-1 {
			if _, err := l.Upsert(ctx, bills); err != nil {
				b.Fatal(err)
			}
			bills = bills[:0]
		}
	}
	return l
}
