package uploads_test

import (
	"context"
	"fmt"
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

// The sheets whose error workbooks the benchmark makes: a real sheet with many problems,
// and 2,700 rows each with a component name of 32,000 characters (under Excel's limit, so
// read; every name too long, so each row and its text is in the error workbook).
const (
	longCellRows  = 2_700
	longCellChars = 32_000
)

var (
	hostileOnce  sync.Once
	hostileFiles []hostileFile
	hostileBad   string // a real sheet with many problems, for the error workbooks
	hostileLong  string // long texts in every row, for the error workbook's echo of them
	hostileErr   error
)

// hostileSet writes, once per test binary, the hostile workbooks of issues 14 and 30 (each
// a few KB to a few MB), a sheet of 30,000 rows with problems in 15,000 of them and the
// sheet of long names.
func hostileSet(b *testing.B) ([]hostileFile, string, string) {
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
			// Issue 30's: six million nested elements (43 KB), and two million (16 KB).
			{"deep-43KB.xlsx", "too_deep", func(p string) error { return sheettest.DeepSheet(p, 6_000_000) }},
			{"deep-16KB.xlsx", "too_deep", func(p string) error { return sheettest.DeepSheet(p, 2_050_000) }},
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
		if _, hostileErr = sheettest.Components(hostileBad, sheettest.Options{Rows: 30_000, Students: 100, Bad: bad}); hostileErr != nil {
			return
		}
		hostileLong = filepath.Join(dir, "long-names.xlsx")
		hostileErr = sheettest.LongCells(hostileLong, longCellRows, longCellChars)
	})
	if hostileErr != nil {
		b.Fatal(hostileErr)
	}
	return hostileFiles, hostileBad, hostileLong
}

// hostileBench is a runner with the analysed uploads whose error workbooks are made.
type hostileBench struct {
	e     *env
	r     *uploads.Runner
	files []hostileFile
	many  []store.UploadJob // four uploads of the sheet with many problems
	long  store.UploadJob   // the upload of long names
	p     i18n.Printer
}

func newHostileBench(b *testing.B) *hostileBench {
	files, bad, long := hostileSet(b)
	e := newEnv(b, 5*time.Second)
	h := &hostileBench{e: e, r: e.start(b, e.config()), files: files, p: i18n.NewPrinter(i18n.Indonesian, nil)}
	for range 4 {
		j := h.analysed(b, bad, "many-problems.xlsx")
		if j.State != uploads.StateReady || j.IssuesKept != uploads.MaxIssuesKept {
			b.Fatalf("upload with problems: %s, %d kept of %d", j.State, j.IssuesKept, j.Issues)
		}
		h.many = append(h.many, j)
	}
	h.long = h.analysed(b, long, "long-names.xlsx")
	if h.long.State != uploads.StateReady || h.long.Issues < longCellRows {
		b.Fatalf("upload of long names: %s, %d problems, %q", h.long.State, h.long.Issues, h.long.Problem)
	}
	return h
}

// analysed receives the sheet at path and waits for its analysis.
func (h *hostileBench) analysed(b *testing.B, path, name string) store.UploadJob {
	ctx := context.Background()
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	rec, err := h.r.Receive(ctx, financeActor, uploads.Components, name, f)
	if err != nil {
		b.Fatal(err)
	}
	if rec.Job.State == uploads.StateHeld {
		if err := h.r.Analyse(ctx, rec.Job.ID, financeActor); err != nil {
			b.Fatal(err)
		}
	}
	return wait(b, h.r, rec.Job.ID)
}

// refused uploads the hostile file and checks it is refused with its problem.
func (h *hostileBench) refused(b *testing.B, f hostileFile) {
	if j := h.analysed(b, f.path, f.name); j.State != uploads.StateInvalid || j.Problem != f.code {
		b.Errorf("%s: %s, problem %q; want refused with %s", f.name, j.State, j.Problem, f.code)
	}
}

// errorWorkbook makes the job's error workbook afresh and downloads it.
func (h *hostileBench) errorWorkbook(b *testing.B, j store.UploadJob) {
	ctx := context.Background()
	if err := h.e.db.DeleteUploadFilesLike(ctx, j.ID, store.UploadErrorsPrefix); err != nil {
		b.Error(err)
		return
	}
	n := &countingWriter{}
	if err := h.r.ErrorWorkbook(ctx, j, n, h.p); err != nil || n.n == 0 {
		b.Errorf("error workbook: %d bytes, %v", n.n, err)
	}
}

// measure runs work in every iteration and reports the heap's peak (peak-heap-MB, the
// most the heap held at any moment, sampled every 2 ms), its base before (base-heap-MB),
// and fails at 300 MB or more.
func measure(b *testing.B, work func()) {
	runtime.GC()
	base := heapNow()
	b.ReportAllocs()
	b.ResetTimer()
	peak := startHeapPeak()
	for b.Loop() {
		work()
	}
	b.StopTimer()
	peak.report(b)
	b.ReportMetric(float64(base)/(1<<20), "base-heap-MB")
	if mb := float64(peak.peak.Load()) / (1 << 20); mb >= 300 {
		b.Errorf("peak heap %.0f MB, the goal is under 300 MB", mb)
	}
}

// BenchmarkHostileUploads is the memory goal of issues 14 and 30: no sheet under the
// upload limit takes the heap to 300 MB, alone or all at once. The uploads are a 300 MiB
// cell written inline, the same as a shared string, a shared-string bomb of 20 million
// strings, a 600 MiB sheet and two sheets of millions of nested elements, each a few KB to
// a few MB on the wire (each refused); the error workbooks are those of a 30,000-row
// sheet with 15,000 bad rows (10,000 problems kept, each marked with a note) and of a
// sheet of 2,700 names of 32,000 characters, made afresh in each iteration.
//
// Each case alone (one/<file>, one/errbook-…), then "all": every hostile upload analysed
// while four error workbooks of the many problems and the long names' are made and
// downloaded, at once.
func BenchmarkHostileUploads(b *testing.B) {
	h := newHostileBench(b)
	for _, f := range h.files {
		b.Run("one/"+f.name, func(b *testing.B) {
			measure(b, func() { h.refused(b, f) })
		})
	}
	b.Run("one/errbook-many-problems", func(b *testing.B) {
		measure(b, func() { h.errorWorkbook(b, h.many[0]) })
	})
	b.Run(fmt.Sprintf("one/errbook-%d-names-of-%d-chars", longCellRows, longCellChars), func(b *testing.B) {
		measure(b, func() { h.errorWorkbook(b, h.long) })
	})
	b.Run("all", func(b *testing.B) {
		measure(b, func() {
			var wg sync.WaitGroup
			for _, f := range h.files {
				wg.Go(func() { h.refused(b, f) })
			}
			for _, j := range append(h.many[:4:4], h.long) {
				wg.Go(func() { h.errorWorkbook(b, j) })
			}
			wg.Wait()
		})
	})
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
