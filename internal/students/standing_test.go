package students

import (
	"strings"
	"testing"
	"time"
)

func TestParseStanding(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		f      StandingForm
		fields []string
		want   Standing
	}{
		{"left", StandingForm{Status: "left", On: "30/11/2026", Note: " pindah kota "}, nil,
			Standing{Status: StatusLeft, On: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC), Note: "pindah kota"}},
		{"graduated, ISO day", StandingForm{Status: "graduated", On: "2027-06-30", Note: "lulus 2027"}, nil,
			Standing{Status: StatusGraduated, On: time.Date(2027, 6, 30, 0, 0, 0, 0, time.UTC), Note: "lulus 2027"}},
		{"back to active, the day ignored", StandingForm{Status: "active", On: "kemarin"}, nil, Standing{Status: StatusActive}},
		{"moved without a day or why", StandingForm{Status: "moved"}, []string{FieldStatusOn, FieldStatusNote}, Standing{}},
		{"a day that is none", StandingForm{Status: "left", On: "31/11/2026", Note: "x"}, []string{FieldStatusOn}, Standing{}},
		{"a why too long", StandingForm{Status: "left", On: "1/12/2026", Note: strings.Repeat("a", MaxStatusNoteLen+1)}, []string{FieldStatusNote}, Standing{}},
		{"no status", StandingForm{}, []string{FieldStatus}, Standing{}},
		{"an unknown one", StandingForm{Status: "expelled", On: "1/12/2026", Note: "x"}, []string{FieldStatus}, Standing{}},
	} {
		got, probs := ParseStanding(tc.f)
		if len(probs) != len(tc.fields) {
			t.Errorf("%s: problems %v, want on %v", tc.name, probs, tc.fields)
			continue
		}
		for _, f := range tc.fields {
			if !probs.Has(f) {
				t.Errorf("%s: no problem on %s: %v", tc.name, f, probs)
			}
		}
		if len(tc.fields) == 0 && (got.Status != tc.want.Status || !got.On.Equal(tc.want.On) || got.Note != tc.want.Note) {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
