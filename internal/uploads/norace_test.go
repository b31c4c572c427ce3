//go:build !race

package uploads_test

const raceEnabled = false
