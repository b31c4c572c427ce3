package web_test

import (
	"slices"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/store"
)

// Classes sort the one natural way everywhere (7A … 9C before 10A), and the student forms
// and the registration wizard offer the known classes while a new one may be typed.
func TestClassesInNaturalOrder(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: billsNow})
	if err := p.DB.UpsertStudents(t.Context(), []store.Student{
		{NIS: "1", Name: "A", Description: "Kelas 10A", Source: store.SourceSync},
		{NIS: "2", Name: "B", Description: "Kelas 7A", Source: store.SourceSync},
		{NIS: "3", Name: "C", Description: "Kelas 9C", Source: store.SourceSync},
		{NIS: "4", Name: "D", Description: "Kelas 7B", Source: store.SourceSync},
	}); err != nil {
		t.Fatal(err)
	}
	want := []string{"Kelas 7A", "Kelas 7B", "Kelas 9C", "Kelas 10A"}
	values := func(s *goquery.Selection, attr string) []string {
		var out []string
		s.Each(func(_ int, o *goquery.Selection) {
			if v := o.AttrOr(attr, ""); v != "" {
				out = append(out, v)
			}
		})
		return out
	}
	c := p.SignedIn(t, "finance")
	for _, path := range []string{"/students/new", "/students/1/edit", "/registrations/new"} {
		res := c.Get(path)
		// The class is chosen from the list (then "Kelas baru…", a new one typed on purpose).
		if got := values(res.Doc.Find(`select#f-description option`), "value"); !slices.Equal(got, append(want, "+new")) {
			t.Errorf("%s offers %v", path, got)
		}
	}
	roster := c.Get("/students")
	if got := values(roster.Doc.Find(`#f-class option`), "value"); !slices.Equal(got, want) {
		t.Errorf("roster filter %v", got)
	}
	var rows []string
	roster.Doc.Find(`[data-testid^="student-"] td:nth-child(3)`).Each(func(_ int, s *goquery.Selection) { rows = append(rows, s.Text()) })
	if !slices.Equal(rows, want) {
		t.Errorf("roster rows in class order %v", rows)
	}
	// The report's filter also offers "no class" (-) after the classes.
	if got := values(c.Get("/reports/outstanding").Doc.Find(`#f-class option`), "value"); len(got) < 4 || !slices.Equal(got[:4], want) {
		t.Errorf("outstanding report filter %v", got)
	}
}
