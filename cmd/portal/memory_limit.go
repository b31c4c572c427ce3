package main

import (
	"io/fs"
	"log/slog"
	"math"
	"runtime/debug"
	"strconv"
	"strings"
)

// defaultMemoryLimit is the soft memory limit the portal sets when GOMEMLIMIT is not set
// and no container limit is found. The portal's own work stays well under it (a few
// hundred MB at worst: four hostile uploads analysed and four error workbooks made at once
// peak under 300 MB, see internal/uploads' BenchmarkHostileUploads); near it the garbage
// collector works harder instead of letting the heap double.
const defaultMemoryLimit = 1 << 30

// containerShare is the part of a container's memory limit given to the Go heap: the rest
// is for goroutine stacks, SQLite's page cache (allocated outside the Go heap) and the
// kernel's buffers counted against the container.
const containerShare = 0.75

// setMemoryLimit sets the runtime's soft memory limit (what GOMEMLIMIT sets) unless the
// environment already did: three quarters of the container's memory limit when cgroups
// say there is one, else defaultMemoryLimit. root is the file system holding /sys.
func setMemoryLimit(log *slog.Logger, root fs.FS) {
	if cur := debug.SetMemoryLimit(-1); cur != math.MaxInt64 {
		log.Info("memory limit from GOMEMLIMIT", "limit_mb", cur>>20)
		return
	}
	limit, source := memoryLimit(root)
	debug.SetMemoryLimit(limit)
	log.Info("memory limit set (GOMEMLIMIT was not)", "limit_mb", limit>>20, "from", source)
}

// memoryLimit chooses the soft limit: containerShare of the cgroup (v2, then v1) memory
// limit when one is set, else defaultMemoryLimit.
func memoryLimit(root fs.FS) (int64, string) {
	for _, name := range []string{"sys/fs/cgroup/memory.max", "sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := fs.ReadFile(root, name)
		if err != nil {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		// "max" (v2) or a page-rounded 2⁶³ (v1) mean no limit.
		if err != nil || n <= 0 || n >= 1<<60 {
			continue
		}
		return int64(float64(n) * containerShare), "/" + name
	}
	return defaultMemoryLimit, "default"
}
