//go:build race

package uploads_test

// raceEnabled scales the fault test down under the race detector, which slows the
// sandbox's batch inserts past the short client timeout the test otherwise uses.
const raceEnabled = true
