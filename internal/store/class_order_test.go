package store_test

import (
	"slices"
	"testing"

	"github.com/sekolah/portal/internal/store"
)

func TestListStudentsInClassOrder(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		var ss []store.Student
		for i, c := range []string{"Kelas 10A", "Kelas 7A", "Kelas 9C", "", "Kelas 7A"} {
			ss = append(ss, store.Student{NIS: string(rune('a'+i)) + "1", Name: "S", Description: c, Source: store.SourceSync})
		}
		if err := db.UpsertStudents(ctx, ss); err != nil {
			t.Fatal(err)
		}
		nis := func(f store.StudentFilter) []string {
			got, _, err := db.ListStudents(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, s := range got {
				out = append(out, s.NIS)
			}
			return out
		}
		// The caller's order of classes; a class it does not name ("") comes last.
		order := []string{"Kelas 7A", "Kelas 9C", "Kelas 10A"}
		if got := nis(store.StudentFilter{ClassOrder: order}); !slices.Equal(got, []string{"b1", "e1", "c1", "a1", "d1"}) {
			t.Errorf("natural order: %v", got)
		}
		if got := nis(store.StudentFilter{ClassOrder: order, Offset: 2, Limit: 2}); !slices.Equal(got, []string{"c1", "a1"}) {
			t.Errorf("page 2: %v", got)
		}
		if got := nis(store.StudentFilter{}); !slices.Equal(got, []string{"d1", "a1", "b1", "e1", "c1"}) {
			t.Errorf("byte order: %v", got)
		}
	})
}
