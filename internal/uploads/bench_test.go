package uploads_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/sheets"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/store/storetest"
	"github.com/sekolah/portal/internal/uploads"
	"github.com/sekolah/portal/internal/uploads/sheettest"
)

const benchRows = 100_000

var (
	benchOnce  sync.Once
	benchSheet sheettest.Sheet
	benchErr   error
	benchDir   string
)

// benchFile writes the 100,000-row sheet once per test binary; both benchmarks read the
// same file, so their ratio is the cost of our checks.
func benchFile(b *testing.B) sheettest.Sheet {
	b.Helper()
	benchOnce.Do(func() {
		benchDir, benchErr = os.MkdirTemp("", "uploads-bench-")
		if benchErr != nil {
			return
		}
		benchSheet, benchErr = sheettest.Components(filepath.Join(benchDir, "components.xlsx"),
			sheettest.Options{Rows: benchRows, Students: 8_334})
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchSheet
}

// benchCleanup are directories the benchmarks' files went to, removed at the end.
var benchCleanup []string

// TestMain runs six tests at once: the fault tests mostly wait out the client's timeout
// and the settle time, the lease tests their renewals (storetest.SetParallel). Reading
// sheets and filling ledgers churns the heap: the tests collect less often
// (storetest.CollectLess; the benchmarks' heap figures keep the default).
func TestMain(m *testing.M) {
	storetest.SetParallel(6)
	storetest.CollectLess()
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	for _, d := range benchCleanup {
		os.RemoveAll(d)
	}
	os.Exit(code)
}

// heapPeak samples the live heap every few milliseconds while a benchmark runs and
// reports the largest value seen, a figure -benchmem does not give.
type heapPeak struct {
	stop chan struct{}
	done chan struct{}
	peak atomic.Uint64
}

func startHeapPeak() *heapPeak {
	h := &heapPeak{stop: make(chan struct{}), done: make(chan struct{})}
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() {
		metrics.Read(sample)
		if v := sample[0].Value.Uint64(); v > h.peak.Load() {
			h.peak.Store(v)
		}
	}
	go func() {
		defer close(h.done)
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			read()
			select {
			case <-h.stop:
				read()
				return
			case <-t.C:
			}
		}
	}()
	return h
}

func (h *heapPeak) report(b *testing.B) {
	close(h.stop)
	<-h.done
	b.ReportMetric(float64(h.peak.Load())/(1<<20), "peak-heap-MB")
}

// BenchmarkSheetRead reads and checks the whole sheet the way an upload is analysed: every
// cell parsed and validated, duplicates looked for, every NIS checked (here all found in
// the roster).
func BenchmarkSheetRead(b *testing.B) {
	sh := benchFile(b)
	db := storetest.OpenTest(b)
	ctx := context.Background()
	roster := make([]store.Student, len(sh.NIS))
	for i, n := range sh.NIS {
		roster[i] = store.Student{NIS: n, Name: sh.Names[i], Source: store.SourceSync}
	}
	if err := db.UpsertStudents(ctx, roster); err != nil {
		b.Fatal(err)
	}
	opts := uploads.Options{
		Kind: uploads.Components, Accounts: []string{"SPP", "BCA", "MANDIRI"},
		Limits: uploads.DefaultLimits(20 << 20), Students: &uploads.Directory{DB: db},
	}
	runtime.GC()
	b.ReportAllocs()
	b.ResetTimer()
	peak := startHeapPeak()
	for b.Loop() {
		sum, err := uploads.Analyse(ctx, sh.Path, opts, func(uploads.Issue) error { return nil })
		if err != nil {
			b.Fatal(err)
		}
		if sum.New != benchRows {
			b.Fatalf("summary %+v, want %d new rows", sum, benchRows)
		}
	}
	b.StopTimer()
	peak.report(b)
}

// BenchmarkSheetReadRaw only iterates the same file's rows with internal/sheets, what
// BenchmarkSheetRead reads through (typed cells, number formats applied), without checking
// them: the floor of the analysis's reading.
func BenchmarkSheetReadRaw(b *testing.B) {
	sh := benchFile(b)
	lim := sheets.DefaultLimits(20 << 20)
	runtime.GC()
	b.ReportAllocs()
	b.ResetTimer()
	peak := startHeapPeak()
	for b.Loop() {
		bk, err := sheets.OpenFile(sh.Path, lim)
		if err != nil {
			b.Fatal(err)
		}
		rows, err := bk.Rows(bk.Preferred())
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for rows.Next() {
			n += len(rows.Row().Cells)
		}
		if err := rows.Err(); err != nil {
			b.Fatal(err)
		}
		bk.Close()
		if n < benchRows*8 {
			b.Fatalf("read %d cells", n)
		}
	}
	b.StopTimer()
	peak.report(b)
}
