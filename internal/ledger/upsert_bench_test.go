package ledger_test

import (
	"context"
	"fmt"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/store"
)

// BenchmarkUpsertPages writes 200 pages of 1,000 new components into an empty ledger,
// as a first fill does without the service: the ledger's share of a fill.
func BenchmarkUpsertPages(b *testing.B) {
	const pages, per = 40, 5000
	students := 2400
	mk := func(p int) []billing.Bill {
		out := make([]billing.Bill, per)
		for i := range out {
			n := p*per + i
			due := time.Date(2021+n/students/12%6, time.Month(1+n/students%12), 10, 0, 0, 0, 0, time.UTC)
			created := time.Date(2027, 3, 1, 0, 0, 0, 0, time.UTC).Add(-time.Duration(n) * time.Second)
			out[i] = billing.Bill{ComponentID: fmt.Sprintf("c-%09d", n), BillID: fmt.Sprintf("b-%d", n%students), NIS: fmt.Sprint(20210000 + n%students),
				StudentName: "Siswa", AccountCode: "SPP", Name: "SPP " + due.Format("Jan 2006"), Amount: 450_000, Penalty: 25_000,
				Due: due, Expiry: due.AddDate(0, 2, 0), State: billing.StateProvisioned, RawState: "provisioned",
				CreatedAt: created, UpdatedAt: created}
			if n%3 == 0 {
				out[i].State, out[i].RawState, out[i].AmountPaid, out[i].PaidAt, out[i].RefNumber = billing.StatePaid, "paid", 450_000, due.Add(-time.Hour), fmt.Sprintf("R%d", n)
			}
		}
		return out
	}
	for b.Loop() {
		b.StopTimer()
		ctx := context.Background()
		db, err := store.Open(ctx, "sqlite:"+filepath.Join(b.TempDir(), "portal.db"), time.Now)
		if err != nil {
			b.Fatal(err)
		}
		l, err := ledger.New(ctx, ledger.Config{DB: db, Clock: clock.System(jakarta)})
		if err != nil {
			b.Fatal(err)
		}
		var ru0, ru1 syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
		b.StartTimer()
		for p := range pages {
			b.StopTimer()
			page := mk(p)
			b.StartTimer()
			if _, err := l.Upsert(ctx, page); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
		cpu := time.Duration(ru1.Utime.Nano()-ru0.Utime.Nano()) + time.Duration(ru1.Stime.Nano()-ru0.Stime.Nano())
		b.ReportMetric(cpu.Seconds(), "cpu-s")
		b.ReportMetric(float64(ru1.Stime.Nano()-ru0.Stime.Nano())/1e9, "sys-s")
		db.Close()
		b.StartTimer()
	}
}
