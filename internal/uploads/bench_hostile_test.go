package uploads_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/uploads"
	"github.com/sekolah/portal/internal/uploads/sheettest"
)

// hostileFile is a hostile workbook of the benchmark and the file problem it must get.
type hostileFile struct {
	name, path, code string
}

var (
	hostileOnce  sync.Once
	hostileFiles []hostileFile
	hostileBad   string // a real sheet with many problems, for the error workbooks
	hostileErr   error
)

// hostileSet writes, once per test binary, the four hostile workbooks of issue 14 (each a
// few hundred KB to a few MB) and a sheet of 30,000 rows with problems in 15,000 of them.
func hostileSet(b *testing.B) ([]hostileFile, string) {
	b.Helper()
	hostileOnce.Do(func() {
		dir, err := os.MkdirTemp("", "uploads-hostile-")
		if err != nil {
			hostileErr = err
			return
		}
		benchCleanup = append(benchCleanup, dir)
		files := []struct {
			name, code string
			write      func(string) error
		}{
			{"cell-300MiB.xlsx", "cell_too_long", func(p string) error { return sheettest.HostileCell(p, 300<<20, false) }},
			{"shared-cell-300MiB.xlsx", "cell_too_long", func(p string) error { return sheettest.HostileCell(p, 300<<20, true) }},
			{"shared-string-bomb.xlsx", "too_many_strings", func(p string) error { return sheettest.SharedStringBomb(p, 20_000_000) }},
			{"huge-sheet.xlsx", "too_big_unzipped", func(p string) error { return sheettest.HugeSheet(p, 600<<20) }},
		}
		for _, f := range files {
			p := filepath.Join(dir, f.name)
			if hostileErr = f.write(p); hostileErr != nil {
				return
			}
			hostileFiles = append(hostileFiles, hostileFile{name: f.name, path: p, code: f.code})
		}
		bad := make([]int, 15_000)
		for i := range bad {
			bad[i] = i * 2
		}
		hostileBad = filepath.Join(dir, "many-problems.xlsx")
		_, hostileErr = sheettest.Components(hostileBad, sheettest.Options{Rows: 30_000, Students: 100, Bad: bad})
	})
	if hostileErr != nil {
		b.Fatal(hostileErr)
	}
	return hostileFiles, hostileBad
}

// BenchmarkHostileUploads is issue 14's memory goal: four hostile uploads analysed and
// four error workbooks made and downloaded, all at once, must keep the heap under 300 MB.
// The uploads are a 300 MiB cell written inline, the same as a shared string, a
// shared-string bomb of 20 million strings and a 600 MiB sheet, each a few hundred KB
// to a few MB on the wire; the error workbooks are those of four uploads of a 30,000-row
// sheet with 15,000 bad rows (10,000 problems kept, each marked with a note), made afresh
// in each iteration. peak-heap-MB is the most the heap held at any moment (sampled every
// 2 ms); base-heap-MB what it held before.
func BenchmarkHostileUploads(b *testing.B) {
	files, bad := hostileSet(b)
	e := newEnv(b, 5*time.Second)
	cfg := e.config()
	r := e.start(b, cfg)
	ctx := context.Background()
	p := i18n.NewPrinter(i18n.Indonesian, nil)

	// Four uploads with many problems, analysed once: their error workbooks are made in
	// every iteration.
	var jobs []store.UploadJob
	for range 4 {
		f, err := os.Open(bad)
		if err != nil {
			b.Fatal(err)
		}
		rec, err := r.Receive(ctx, financeActor, uploads.Components, "many-problems.xlsx", f)
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		if rec.Job.State == uploads.StateHeld {
			if err := r.Analyse(ctx, rec.Job.ID, financeActor); err != nil {
				b.Fatal(err)
			}
		}
		j := wait(b, r, rec.Job.ID)
		if j.State != uploads.StateReady || j.IssuesKept != uploads.MaxIssuesKept {
			b.Fatalf("upload with problems: %s, %d kept of %d", j.State, j.IssuesKept, j.Issues)
		}
		jobs = append(jobs, j)
	}

	runtime.GC()
	base := heapNow()
	b.ReportAllocs()
	b.ResetTimer()
	peak := startHeapPeak()
	for b.Loop() {
		for _, j := range jobs {
			if err := e.db.DeleteUploadFilesLike(ctx, j.ID, store.UploadErrorsPrefix); err != nil {
				b.Fatal(err)
			}
		}
		var wg sync.WaitGroup
		for _, h := range files {
			wg.Go(func() {
				f, err := os.Open(h.path)
				if err != nil {
					b.Error(err)
					return
				}
				defer f.Close()
				rec, err := r.Receive(ctx, financeActor, uploads.Components, h.name, f)
				if err != nil {
					b.Error(err)
					return
				}
				if rec.Job.State == uploads.StateHeld {
					if err := r.Analyse(ctx, rec.Job.ID, financeActor); err != nil {
						b.Error(err)
						return
					}
				}
				if j := wait(b, r, rec.Job.ID); j.State != uploads.StateInvalid || j.Problem != h.code {
					b.Errorf("%s: %s, problem %q; want refused with %s", h.name, j.State, j.Problem, h.code)
				}
			})
		}
		for _, j := range jobs {
			wg.Go(func() {
				n := &countingWriter{}
				if err := r.ErrorWorkbook(ctx, j, n, p); err != nil || n.n == 0 {
					b.Errorf("error workbook: %d bytes, %v", n.n, err)
				}
			})
		}
		wg.Wait()
	}
	b.StopTimer()
	peak.report(b)
	b.ReportMetric(float64(base)/(1<<20), "base-heap-MB")
	if mb := float64(peak.peak.Load()) / (1 << 20); mb >= 300 {
		b.Errorf("peak heap %.0f MB, the goal is under 300 MB", mb)
	}
}

// heapNow is the heap's live and unswept objects now.
func heapNow() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

var _ io.Writer = (*countingWriter)(nil)
