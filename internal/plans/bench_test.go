package plans_test

import (
	"context"
	"fmt"
	"math"
	"syscall"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/plans"
	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/sandbox"
)

// BenchmarkPlanApply is a year of SPP for a school of 1.000 students (12.000 components)
// against the sandbox answering every call 50 ms late (its latency_ms fault), with the
// portal's own settings (200 components a batch, 3 batches at once):
//   - preview-s: the preview (roster, the ledger's keys, discounts), to stay under 2 s;
//   - job-s (from the confirmation to the job's end) against floor-s, the wire's floor:
//     batches ÷ concurrency × one batch call, call-ms, timed in the same run on the same
//     sandbox (200 components of a name the plan never makes, by the billing client
//     alone: the 50 ms and the service's own work, which here shares the machine); their
//     ratio x-floor, to stay under 1.3; x-latency is job-s over the latency alone
//     (batches ÷ concurrency × 50 ms), the floor of a service that did no work;
//   - again-writes: the batches sent when the same plan is applied again (0);
//   - job-cpu-s: the CPU the job used (the portal's and the sandbox's, both in this
//     process): on a machine shared with others, what part of job-s was work.
//
// go test ./internal/plans/ -run '^$' -bench PlanApply -benchtime 3x
func BenchmarkPlanApply(b *testing.B) {
	const students, latency = 1000, 50 * time.Millisecond
	w := &writes{}
	classes := make([]string, 20)
	for i := range classes {
		classes[i] = fmt.Sprintf("Kelas %d%c", 7+i/4, 'A'+i%4)
	}
	p, nis := school(b, portaltest.Options{Upstream: w.wrap}, classes, students/len(classes))
	cfg := p.App.Plans.Config()
	ctx := context.Background()
	var preview, job, floor, bare, call, cpu time.Duration
	var calls int
	var again int64
	for i := range b.N {
		b.StopTimer()
		f := sppForm()
		f.Name = fmt.Sprintf("SPP %d 2026/2027", i)
		plan := create(b, p, f)
		sel := plans.Selection{Grades: []string{"7", "8", "9", "10", "11"}, From: plan.From, To: plan.To}
		p.Sandbox.SetFaults(sandbox.Faults{LatencyMS: int(latency / time.Millisecond)})
		one := batchCall(b, p, nis, i, cfg.ChunkSize)
		call += one
		calls++
		b.StartTimer()

		start := time.Now()
		pv, probs, err := p.App.Plans.Preview(ctx, plan, sel)
		preview += time.Since(start)
		if err != nil || len(probs) > 0 || pv.Create != students*12 {
			b.Fatalf("preview: %d to create, %v %v", pv.Create, probs, err)
		}
		start = time.Now()
		cpu0 := cpuTime()
		id, err := p.App.Plans.Submit(ctx, finance, pv)
		if err != nil {
			b.Fatal(err)
		}
		j := waitJob(b, p, id)
		job += time.Since(start)
		cpu += cpuTime() - cpu0
		if j.Done != students*12 {
			b.Fatalf("job: %+v", j)
		}
		batches := math.Ceil(float64(students*12) / float64(cfg.ChunkSize))
		rounds := time.Duration(math.Ceil(batches / float64(cfg.Concurrency)))
		floor += rounds * one
		bare += rounds * latency

		b.StopTimer()
		before := w.batches.Load()
		pv, _, err = p.App.Plans.Preview(ctx, plan, sel)
		if err != nil || pv.Create != 0 {
			b.Fatalf("applied again: %d to create, %v", pv.Create, err)
		}
		if _, err := p.App.Plans.Submit(ctx, finance, pv); err != plans.ErrNothing {
			b.Fatalf("applied again: %v", err)
		}
		again += w.batches.Load() - before
		p.Sandbox.SetFaults(sandbox.Faults{})
		b.StartTimer()
	}
	n := float64(b.N)
	b.ReportMetric(preview.Seconds()/n, "preview-s")
	b.ReportMetric(job.Seconds()/n, "job-s")
	b.ReportMetric(floor.Seconds()/n, "floor-s")
	b.ReportMetric(job.Seconds()/floor.Seconds(), "x-floor")
	b.ReportMetric(float64(call.Milliseconds())/float64(calls), "call-ms")
	b.ReportMetric(job.Seconds()/bare.Seconds(), "x-latency")
	b.ReportMetric(float64(again)/n, "again-writes")
	b.ReportMetric(cpu.Seconds()/n, "job-cpu-s")
}

// batchCall times one batch call of n new components for students nis by the billing
// client alone (the mean of three), on components of a name and due month the plan never makes, for the
// wire's floor: what one of the job's calls costs at this sandbox, on this machine.
func batchCall(b *testing.B, p *portaltest.Portal, nis []string, run, n int) time.Duration {
	b.Helper()
	const tries = 3
	var total time.Duration
	for k := range tries {
		due := time.Date(2031, time.Month(1+k), 10+run%15, 0, 0, 0, 0, time.UTC)
		in := make([]billing.ComponentInput, n)
		for i := range in {
			in[i] = billing.ComponentInput{NIS: nis[i%len(nis)], AccountCode: "SPP",
				Name: fmt.Sprintf("Uji %d %d", run, k), Due: due, Expiry: due.AddDate(0, 1, 0), Amount: 100_000}
		}
		t0 := time.Now()
		if _, err := p.Billing.CreateComponents(context.Background(), in); err != nil {
			b.Fatal(err)
		}
		total += time.Since(t0)
	}
	return total / tries
}

// cpuTime is the CPU the process has used (the portal and the sandbox: both run here), so
// a run on a machine shared with others can say how much of the job was work and how
// much was waiting for a core.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
