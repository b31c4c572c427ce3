package web_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/outbox"
	"github.com/sekolah/portal/internal/portaltest"
)

// BenchmarkQueueFollowUps is a click on "send" for 1,000 students in arrears: the
// arrears report's selection read from the ledger, the roster and the parents' contacts
// read, each message decided and written to the outbox under its key, one audit entry.
// The sending is the worker's, paced by the gateway: at 22:00 it waits for the morning,
// so the benchmark measures the request alone. Each round is another day (one follow-up
// a student a day), 1,000 new messages each.
func BenchmarkQueueFollowUps(b *testing.B) {
	for _, engine := range []string{"sqlite", "postgres"} {
		b.Run(engine, func(b *testing.B) {
			day := time.Date(2026, 11, 22, 15, 0, 0, 0, time.UTC) // 22:00 in Jakarta
			p := startOutboxB(b, portaltest.Options{Now: day, Postgres: engine == "postgres"})
			const n = 1000
			var ss []billing.Student
			var in []billing.ComponentInput
			for i := range n {
				id := fmt.Sprintf("40%05d", i+1)
				ss = append(ss, billing.Student{NIS: id, Name: fmt.Sprintf("Siswa %04d", i+1), Phone: fmt.Sprintf("0814%08d", i+1), Description: "Kelas 9C"})
				in = append(in, billing.ComponentInput{NIS: id, AccountCode: "SPP", Name: "SPP Oktober", Due: billDay("2026-11-01"),
					Expiry: billDay("2027-01-31"), Amount: 150_000})
			}
			if _, err := p.Billing.CreateStudents(b.Context(), ss); err != nil {
				b.Fatal(err)
			}
			if _, err := p.Billing.CreateComponents(b.Context(), in); err != nil {
				b.Fatal(err)
			}
			p.SyncLedger(b)
			f := outbox.FollowUpFilter{Report: followUpReport("Kelas 9C")}
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				p.SetNow(day.AddDate(0, 0, i))
				q, err := p.App.Outbox.QueueFollowUps(b.Context(), auth.SystemActor, f)
				if err != nil || q.Messages != n {
					b.Fatalf("round %d: %+v %v", i, q, err)
				}
			}
		})
	}
}
