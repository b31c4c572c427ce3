package plans_test

import (
	"context"
	"fmt"
	"math"
	"syscall"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/plans"
	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/sandbox"
)

// BenchmarkPlanApply is a year of SPP for a school of 1.000 students (12.000 components)
// against the sandbox answering every call 50 ms late (its latency_ms fault), with the
// portal's own settings (200 components a batch, 3 batches at once):
//   - preview-s: the preview (roster, the ledger's keys, discounts), to stay under 2 s;
//   - job-s against floor-s, the wire's floor (batches ÷ concurrency × 50 ms), and their
//     ratio x-floor, to stay under 1.3;
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
	p, _ := school(b, portaltest.Options{Upstream: w.wrap}, classes, students/len(classes))
	cfg := p.App.Plans.Config()
	ctx := context.Background()
	var preview, job, floor, cpu time.Duration
	var again int64
	for i := range b.N {
		b.StopTimer()
		f := sppForm()
		f.Name = fmt.Sprintf("SPP %d 2026/2027", i)
		plan := create(b, p, f)
		sel := plans.Selection{Grades: []string{"7", "8", "9", "10", "11"}, From: plan.From, To: plan.To}
		p.Sandbox.SetFaults(sandbox.Faults{LatencyMS: int(latency / time.Millisecond)})
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
		floor += time.Duration(math.Ceil(batches/float64(cfg.Concurrency))) * latency

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
	b.ReportMetric(float64(again)/n, "again-writes")
	b.ReportMetric(cpu.Seconds()/n, "job-cpu-s")
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
