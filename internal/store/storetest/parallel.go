package storetest

import (
	"flag"
	"strconv"
)

// SetParallel makes a test binary run n parallel tests at once, unless its command line
// set -parallel (go test's default is one per core). Call it from TestMain before m.Run.
// It is for packages whose tests spend much of their time waiting rather than computing:
// on PostgreSQL (a process of its own, whose work the default does not count), on
// loopback calls to a sandbox, on the short timeouts of fault tests; more tests than
// cores then keep the cores busy, and the package's time follows its work.
func SetParallel(n int) {
	if f := flag.Lookup("test.parallel"); f != nil && f.Value.String() == f.DefValue {
		_ = flag.Set("test.parallel", strconv.Itoa(max(n, 1)))
	}
}
