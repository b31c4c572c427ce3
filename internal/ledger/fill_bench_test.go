package ledger_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/sandbox"
	"github.com/sekolah/portal/internal/store"
)

// fillComponents is the size of the school BenchmarkFirstFill reads: 1,000,000, or
// PORTAL_LEDGER_FILL_N.
func fillComponents() int {
	if v, err := strconv.Atoi(os.Getenv("PORTAL_LEDGER_FILL_N")); err == nil && v > 0 {
		return v
	}
	return 1_000_000
}

var fillSchool struct {
	once sync.Once
	dir  string
	path string
	err  error
	took time.Duration
}

var fillNow = time.Date(2027, time.March, 15, 10, 0, 0, 0, jakarta)

// fillSchoolPath uploads the school into a sandbox SQLite file once per run, through the
// API (students, then components a thousand at a time), and keeps the file.
func fillSchoolPath(b *testing.B, n int) string {
	fillSchool.once.Do(func() {
		start := time.Now()
		if keep := os.Getenv("PORTAL_LEDGER_FILL_DB"); keep != "" {
			fillSchool.path = keep
			if _, err := os.Stat(keep); err == nil {
				return
			}
		} else {
			if fillSchool.dir, fillSchool.err = os.MkdirTemp("", "ledger-fill-"); fillSchool.err != nil {
				return
			}
			fillSchool.path = filepath.Join(fillSchool.dir, "sandbox.db")
		}
		sb, err := sandbox.New(sandbox.Options{Username: sbUser, Password: sbPass, Location: jakarta, Now: fillNow, DBPath: fillSchool.path})
		if err != nil {
			fillSchool.err = err
			return
		}
		defer sb.Close()
		ts := httptest.NewServer(sb)
		defer ts.Close()
		c, err := billing.New(billing.Config{BaseURL: ts.URL, Username: sbUser, Password: sbPass, Location: jakarta, Now: sb.Now, Timeout: time.Minute})
		if err != nil {
			fillSchool.err = err
			return
		}
		ctx := context.Background()
		students := (n + 83) / 84
		for from := 0; from < students; from += 1000 {
			var list []billing.Student
			for i := from; i < min(from+1000, students); i++ {
				list = append(list, billing.Student{NIS: fmt.Sprint(20210000 + i), Name: fmt.Sprintf("Siswa %d", i), Description: fmt.Sprintf("Kelas %d", 7+i%6)})
			}
			if _, err := c.CreateStudents(ctx, list); err != nil {
				fillSchool.err = err
				return
			}
		}
		var batch []billing.ComponentInput
		for i := range n {
			due := time.Date(2021+i/students/12, time.Month(1+i/students%12), 10, 0, 0, 0, 0, time.UTC)
			batch = append(batch, billing.ComponentInput{NIS: fmt.Sprint(20210000 + i%students), AccountCode: "SPP",
				Name: "SPP " + due.Format("Jan 2006"), Due: due, Expiry: due.AddDate(0, 2, 0), Amount: 450_000, Penalty: 25_000})
			if len(batch) == 1000 || i == n-1 {
				if _, err := c.CreateComponents(ctx, batch); err != nil {
					fillSchool.err = err
					return
				}
				batch = batch[:0]
			}
		}
		fillSchool.took = time.Since(start)
	})
	if fillSchool.err != nil {
		b.Fatal(fillSchool.err)
	}
	if fillSchool.took > 0 {
		b.Logf("uploaded %d components to the sandbox in %v", n, fillSchool.took.Round(time.Second))
	}
	return fillSchool.path
}

// heapPeak samples the Go heap (live objects and garbage not yet collected) every 10ms
// and keeps the largest figure.
type heapPeak struct {
	peak atomic.Uint64
	stop chan struct{}
	done chan struct{}
}

func startHeapPeak() *heapPeak {
	h := &heapPeak{stop: make(chan struct{}), done: make(chan struct{})}
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	go func() {
		defer close(h.done)
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > h.peak.Load() {
				h.peak.Store(v)
			}
			select {
			case <-h.stop:
				return
			case <-t.C:
			}
		}
	}()
	return h
}

func (h *heapPeak) end() float64 {
	close(h.stop)
	<-h.done
	return float64(h.peak.Load()) / (1 << 20)
}

// BenchmarkFirstFill is the first sync of an empty ledger from a sandbox holding the
// school (the students and fillComponents() components), over real HTTP, at 0 and 50 ms
// of latency per call. peak-heap-MB is the whole process's Go heap at its largest, the
// in-process sandbox included (an upper bound for the portal's share). Run it with
// -benchtime 1x: one fill is the measure.
func BenchmarkFirstFill(b *testing.B) {
	n := fillComponents()
	path := fillSchoolPath(b, n)
	defer func() {
		if fillSchool.dir != "" {
			os.RemoveAll(fillSchool.dir)
			fillSchool.dir = ""
		}
	}()
	for _, latency := range []int{0, 50} {
		b.Run(fmt.Sprintf("latency-%dms", latency), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				sb, err := sandbox.New(sandbox.Options{Username: sbUser, Password: sbPass, Location: jakarta, Now: fillNow, DBPath: path})
				if err != nil {
					b.Fatal(err)
				}
				sb.SetFaults(sandbox.Faults{LatencyMS: latency})
				ts := httptest.NewServer(sb)
				c, err := billing.New(billing.Config{BaseURL: ts.URL, Username: sbUser, Password: sbPass, Location: jakarta, Now: sb.Now, Timeout: time.Minute})
				if err != nil {
					b.Fatal(err)
				}
				ctx := context.Background()
				db, err := store.Open(ctx, "sqlite:"+filepath.Join(b.TempDir(), "portal.db"), time.Now)
				if err != nil {
					b.Fatal(err)
				}
				quiet := slog.New(slog.DiscardHandler)
				l, err := ledger.New(ctx, ledger.Config{DB: db, Clock: clock.New(sb.Now, jakarta), Logger: quiet})
				if err != nil {
					b.Fatal(err)
				}
				s, err := ledger.NewSyncer(ledger.SyncConfig{Ledger: l, Client: c, ReconcileHour: -1, Logger: quiet})
				if err != nil {
					b.Fatal(err)
				}
				heap := startHeapPeak()
				b.StartTimer()
				start := time.Now()
				r, err := s.RunIncremental(ctx)
				took := time.Since(start)
				b.StopTimer()
				peak := heap.end()
				if err != nil {
					b.Fatal(err)
				}
				f, _ := l.Freshness(ctx)
				if f.FillRead != n {
					b.Fatalf("filled %d of %d components (%s)", f.FillRead, n, r.Summary())
				}
				b.ReportMetric(peak, "peak-heap-MB")
				b.ReportMetric(float64(n)/took.Seconds(), "components/s")
				b.Logf("first fill of %d components at %d ms latency: %v, %d calls, peak heap %.0f MB", n, latency, took.Round(time.Millisecond), r.Calls, peak)
				db.Close()
				ts.Close()
				sb.Close()
				b.StartTimer()
			}
		})
	}
}
