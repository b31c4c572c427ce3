package storetest

import (
	"flag"
	"os"
	"runtime/debug"
)

// CollectLess lets a test binary's heap grow to five times what is live before a
// collection (GOGC=400) instead of twice, unless GOGC is set or the run measures
// benchmarks, whose heap figures must be the default's. Call it from TestMain before
// m.Run; it parses the command line.
//
// It is for packages that fill ledgers and schools: many short-lived allocations over a
// small live heap, where the default spends a sixth of the CPU collecting. Measured on
// internal/ledger: 19–20 s of CPU to 16.5–18.4 s, its largest resident size 124 MB to
// 218 MB.
func CollectLess() {
	if !flag.Parsed() {
		flag.Parse()
	}
	if f := flag.Lookup("test.bench"); f != nil && f.Value.String() != "" {
		return
	}
	if _, set := os.LookupEnv("GOGC"); set {
		return
	}
	debug.SetGCPercent(400)
}
