package billing

import (
	"context"
	"fmt"
	"testing"

	"github.com/sekolah/portal/internal/sandbox"
)

// BenchmarkCreateBatch is one batch call of 200 new components (the portal's chunk) to the
// sandbox with no latency added: the work of a call at both ends (the client's encoding
// and reading, the sandbox's checks, writes and answer), which a job's wire floor pays on
// top of the service's latency. Its CPU shares the machine with the portal's in the jobs'
// benchmarks (BenchmarkPlanApply, BenchmarkUploadWire).
func BenchmarkCreateBatch(b *testing.B) {
	e := setup(b, func(*sandbox.Options, *Config) {})
	nis := make([]string, 200)
	for i := range nis {
		nis[i] = fmt.Sprintf("2026%04d", i)
	}
	e.students(b, nis...)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		in := make([]ComponentInput, 200)
		for i := range in {
			in[i] = spp(nis[i], fmt.Sprintf("SPP %d", n), day(2026, 1, 10).AddDate(0, 0, n%300), 250_000, 10_000)
			in[i].Notes = fmt.Sprintf("[plan SPP 2026-%04d]", n)
		}
		n++
		bills, err := e.c.CreateComponents(context.Background(), in)
		if err != nil || len(bills) != len(in) {
			b.Fatalf("%d made, %v", len(bills), err)
		}
	}
}
