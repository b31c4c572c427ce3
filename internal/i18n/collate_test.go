package i18n

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestCompareNaturalClasses(t *testing.T) {
	want := []string{
		"1", "2", "7", "7A", "7a", "7B", "8", "10",
		"Kelas 7A", "Kelas 7B", "kelas 7C", "Kelas VIII B", "Kelas IX A", "Kelas 9C", "Kelas X IPA 1", "Kelas X IPA 2", "Kelas 10A",
		"Kelas 10B", "Kelas 11 IPA 1", "Kelas 11 IPA 2", "Kelas 11 IPA 10", "Kelas XI IPS 1", "Kelas XII IPA 1",
		"Kelas Xavier", "SMP 07", "SMP 7", "SMP 8",
	}
	for range 20 {
		got := slices.Clone(want)
		rand.Shuffle(len(got), func(i, j int) { got[i], got[j] = got[j], got[i] })
		SortNatural(got)
		if !slices.Equal(got, want) {
			t.Fatalf("sorted:\n%q\nwant:\n%q", got, want)
		}
	}
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"Kelas 9C", "Kelas 10A", -1},
		{"Kelas 10A", "Kelas 9C", 1},
		{"7A", "7A", 0},
		{"IX", "X", -1},
		{"XII", "XI", 1},
		{"VIII B", "IX A", -1},
		{"Kelas 9", "Kelas X", -1},   // Roman and Arabic grades compare by value
		{"Kelas IIX", "Kelas IX", 1}, // not a numeral: letters
		{"", "7A", -1},
		{"99999999999999999999A", "99999999999999999999B", -1},
	} {
		if got := CompareNatural(tt.a, tt.b); got != tt.want {
			t.Errorf("CompareNatural(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
