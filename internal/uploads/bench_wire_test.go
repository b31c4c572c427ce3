package uploads_test

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/sandbox"
	"github.com/sekolah/portal/internal/uploads"
	"github.com/sekolah/portal/internal/uploads/sheettest"
)

// BenchmarkUploadWire is the measure of an upload bounded by the wire: 20,000
// component rows of 1,667 students who are at the service but not yet in the roster,
// against the sandbox answering every call after 50 ms. It reports the analysis's time,
// the commit's time (commit to done), and, measured in the same run on the same sandbox,
// the wire's lower bound for the commit: (rows ÷ chunk size) × one batch call of chunk
// size ÷ concurrency, with commit-ratio the commit's time over that bound. That call is
// made through the portal's writer (its audit entry and ledger write included);
// wire-ratio is the commit's time over the same bound with the billing client's call alone
// (client-call-ms), the wire's floor without any of the portal's own work. Run it once:
//
//	go test -run '^$' -bench UploadWire -benchtime 1x -benchmem ./internal/uploads/
func BenchmarkUploadWire(b *testing.B) {
	const rows, students, latency, tries = 20_000, 1_667, 50 * time.Millisecond, 5
	dir := b.TempDir()
	sh, err := sheettest.Components(filepath.Join(dir, "tagihan.xlsx"), sheettest.Options{Rows: rows, Students: students})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var analysis, commit, bound, parallel, wire, wireBound time.Duration
	var gets, lists atomic.Int64
	for b.Loop() {
		b.StopTimer()
		e := newEnvWith(b, 5*time.Second, func(next http.RoundTripper) http.RoundTripper {
			return countCalls{next: next, gets: &gets, lists: &lists}
		})
		l, err := ledger.New(ctx, ledger.Config{DB: e.db, Clock: clock.New(e.sb.Now, e.sb.Location())})
		if err != nil {
			b.Fatal(err)
		}
		e.writer.Ledger = l
		// The students are at the service only: the roster has not heard of them.
		for start := 0; start < len(sh.NIS); start += 500 {
			var list []billing.Student
			for i := start; i < min(start+500, len(sh.NIS)); i++ {
				list = append(list, billing.Student{NIS: sh.NIS[i], Name: sh.Names[i], Description: "Kelas 7A"})
			}
			if _, err := e.client.CreateStudents(ctx, list); err != nil {
				b.Fatal(err)
			}
		}
		cfg := e.config()
		cfg.Settle = 5 * time.Second
		r := e.start(b, cfg)
		e.sb.SetFaults(sandbox.Faults{LatencyMS: int(latency / time.Millisecond)})

		// The lower bound: one batch call of ChunkSize components, timed a few times on
		// components of their own (another due month) that the sheet never names.
		var one, w1 time.Duration
		for k := range tries {
			inputs := make([]billing.ComponentInput, cfg.ChunkSize)
			for i := range inputs {
				due := time.Date(2030, time.Month(1+k), 10, 0, 0, 0, 0, time.UTC)
				inputs[i] = billing.ComponentInput{NIS: sh.NIS[i%len(sh.NIS)], AccountCode: "SPP", Name: fmt.Sprintf("Uji %d", i),
					Due: due, Expiry: due.AddDate(0, 1, 0), Amount: 100_000}
			}
			t0 := time.Now()
			if _, err := e.writer.CreateComponents(ctx, financeActor, inputs, "bound"); err != nil {
				b.Fatal(err)
			}
			one += time.Since(t0)
			for i := range inputs {
				inputs[i].Name += " wire"
			}
			t0 = time.Now()
			if _, err := e.client.CreateComponents(ctx, inputs); err != nil {
				b.Fatal(err)
			}
			w1 += time.Since(t0)
		}
		one /= tries
		chunks := (rows + cfg.ChunkSize - 1) / cfg.ChunkSize
		bound += one * time.Duration(chunks) / time.Duration(cfg.Concurrency)
		wire += w1
		wireBound += w1 / tries * time.Duration(chunks) / time.Duration(cfg.Concurrency)
		// The same calls Concurrency at a time, as the job makes them: on a machine of two
		// shared cores running the sandbox too, parallel calls are slower than one alone.
		var round time.Duration
		for k := range tries {
			t0 := time.Now()
			var wg sync.WaitGroup
			for c := range cfg.Concurrency {
				inputs := make([]billing.ComponentInput, cfg.ChunkSize)
				for i := range inputs {
					due := time.Date(2031, time.Month(1+k), 10+c, 0, 0, 0, 0, time.UTC)
					inputs[i] = billing.ComponentInput{NIS: sh.NIS[i%len(sh.NIS)], AccountCode: "SPP", Name: fmt.Sprintf("Uji %d", i),
						Due: due, Expiry: due.AddDate(0, 1, 0), Amount: 100_000}
				}
				wg.Go(func() {
					if _, err := e.writer.CreateComponents(ctx, financeActor, inputs, "bound"); err != nil {
						b.Error(err)
					}
				})
			}
			wg.Wait()
			round += time.Since(t0)
		}
		parallel += round / tries * time.Duration((chunks+cfg.Concurrency-1)/cfg.Concurrency)
		gets.Store(0)
		lists.Store(0)

		b.StartTimer()
		t0 := time.Now()
		j := receive(b, r, uploads.Components, sh.Path)
		analysis += time.Since(t0)
		if j.State != uploads.StateReady || j.RowsNew != rows {
			b.Fatalf("preview: state %s, new %d, errors %d, problem %s", j.State, j.RowsNew, j.RowsError, j.Problem)
		}
		t1 := time.Now()
		if err := r.Commit(ctx, j.ID, financeActor); err != nil {
			b.Fatal(err)
		}
		done := wait(b, r, j.ID)
		commit += time.Since(t1)
		if done.State != uploads.StateDone || done.Created != rows {
			b.Fatalf("job: state %s, created %d", done.State, done.Created)
		}
		b.StopTimer()
		e.sb.SetFaults(sandbox.Faults{})
		b.StartTimer()
	}
	n := float64(b.N)
	b.ReportMetric(analysis.Seconds()/n, "analysis-s")
	b.ReportMetric(commit.Seconds()/n, "commit-s")
	b.ReportMetric(bound.Seconds()/n, "bound-s")
	b.ReportMetric(commit.Seconds()/bound.Seconds(), "commit-ratio")
	b.ReportMetric(parallel.Seconds()/n, "parallel-bound-s")
	b.ReportMetric(commit.Seconds()/parallel.Seconds(), "parallel-ratio")
	b.ReportMetric(wire.Seconds()/n/tries*1000, "client-call-ms")
	b.ReportMetric(commit.Seconds()/wireBound.Seconds(), "wire-ratio")
	b.ReportMetric(float64(gets.Load())/n, "student-GETs")
	b.ReportMetric(float64(lists.Load())/n, "student-lists")
}

// countCalls counts the calls that ask the service about students: one student
// (GET /bill/{NIS}) and the list (GET /bill).
type countCalls struct {
	next        http.RoundTripper
	gets, lists *atomic.Int64
}

func (c countCalls) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodGet {
		switch p := req.URL.Path; {
		case p == "/bill":
			c.lists.Add(1)
		case len(p) > len("/bill/") && p[:len("/bill/")] == "/bill/":
			c.gets.Add(1)
		}
	}
	return c.next.RoundTrip(req)
}
