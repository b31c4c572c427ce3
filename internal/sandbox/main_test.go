package sandbox

import (
	"flag"
	"os"
	"runtime/debug"
	"testing"
)

// TestMain: building demo schools churns the heap over a small live one, so the tests
// collect at five times the live heap instead of twice, unless GOGC is set or the run
// measures benchmarks. (storetest.CollectLess does this for the portal's packages; the
// sandbox knows nothing of the portal's store.)
func TestMain(m *testing.M) {
	flag.Parse()
	if _, set := os.LookupEnv("GOGC"); !set && flag.Lookup("test.bench").Value.String() == "" {
		debug.SetGCPercent(400)
	}
	os.Exit(m.Run())
}
