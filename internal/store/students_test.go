package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/store/storetest"
)

func TestRoster(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.OpenTest(t)
	var batch []store.Student
	for i := range 30 {
		batch = append(batch, store.Student{NIS: fmt.Sprintf("25%03d", i), Name: fmt.Sprintf("Siswa %d Putri", i),
			Description: fmt.Sprintf("Kelas %dA", 7+i%3), Source: store.SourceUpload})
	}
	batch = append(batch, store.Student{NIS: "99_1", Name: "Ahmad  Fauzi", Description: "Kelas 10B", Source: store.SourcePortal, Phone: "0812"})
	if err := db.UpsertStudents(ctx, batch); err != nil {
		t.Fatal(err)
	}
	// Upserting again refreshes the profile and keeps source and creation time.
	first, _ := db.StudentByNIS(ctx, "25000")
	synced := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	if err := db.UpsertStudents(ctx, []store.Student{{NIS: "25000", Name: "Siswa Nol", Description: "Kelas 7A", Source: store.SourceSync, SyncedAt: synced}}); err != nil {
		t.Fatal(err)
	}
	got, err := db.StudentByNIS(ctx, "25000")
	if err != nil || got.Name != "Siswa Nol" || got.Source != store.SourceUpload || !got.CreatedAt.Equal(first.CreatedAt) ||
		!got.SyncedAt.Equal(synced) || got.KeyName != "NIS" || got.HasTotals() {
		t.Fatalf("after upsert: %+v %v", got, err)
	}
	if _, err := db.StudentByNIS(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown NIS: %v", err)
	}

	tests := []struct {
		f        store.StudentFilter
		total, n int
		firstNIS string
	}{
		{store.StudentFilter{Limit: 10}, 31, 10, "99_1"},
		{store.StudentFilter{Class: "Kelas 8A"}, 10, 10, "25001"},
		{store.StudentFilter{Query: "ahmad fauzi"}, 1, 1, "99_1"},
		{store.StudentFilter{Query: "FAUZI"}, 1, 1, "99_1"},
		{store.StudentFilter{Query: "2501"}, 10, 10, "25012"},
		{store.StudentFilter{Query: "99_"}, 1, 1, "99_1"},
		{store.StudentFilter{Query: "9%"}, 0, 0, ""},
		{store.StudentFilter{Query: "putri", Class: "Kelas 9A", Offset: 8, Limit: 5}, 10, 2, "25026"},
	}
	for _, tt := range tests {
		list, total, err := db.ListStudents(ctx, tt.f)
		if err != nil || total != tt.total || len(list) != tt.n || (tt.n > 0 && list[0].NIS != tt.firstNIS) {
			first := ""
			if len(list) > 0 {
				first = list[0].NIS
			}
			t.Errorf("%+v: total %d n %d first %q err %v; want %d %d %q", tt.f, total, len(list), first, err, tt.total, tt.n, tt.firstNIS)
		}
	}
	classes, err := db.Classes(ctx)
	if err != nil || len(classes) != 4 || classes[0] != "Kelas 10B" {
		t.Fatalf("classes = %v %v", classes, err)
	}
	known, err := db.StudentsByNIS(ctx, []string{"25001", "nope", "99_1"})
	if err != nil || len(known) != 2 || known["99_1"].Phone != "0812" {
		t.Fatalf("by NIS = %v %v", known, err)
	}
	at := time.Date(2026, 11, 22, 1, 0, 0, 0, time.UTC)
	if err := db.SetStudentTotals(ctx, "99_1", 1_250_000, 2, at); err != nil {
		t.Fatal(err)
	}
	if s, _ := db.StudentByNIS(ctx, "99_1"); s.Outstanding != 1_250_000 || s.OverdueCount != 2 || !s.TotalsAt.Equal(at) {
		t.Fatalf("totals: %+v", s)
	}
	n := 0
	if err := db.AllStudents(ctx, func(store.Student) error { n++; return nil }); err != nil || n != 31 {
		t.Fatalf("AllStudents: %d %v", n, err)
	}
	if err := db.DeleteStudent(ctx, "99_1"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.StudentByNIS(ctx, "99_1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatal("deleted student still there")
	}
}

// A student's standing and aid flags are the portal's: the roster's sync (an upsert of
// the service's record) never changes them.
func TestStudentStatusAndAidSurviveTheSync(t *testing.T) {
	t.Parallel()
	eachDB(t, testStudentStatusAndAid)
}

func testStudentStatusAndAid(t *testing.T, db *store.DB) {
	ctx := context.Background()
	if err := db.UpsertStudents(ctx, []store.Student{{NIS: "0012345", Name: "Budi", Description: "Kelas 9A", Source: store.SourceSync},
		{NIS: "0012346", Name: "Sari", Description: "Kelas 9A", Source: store.SourceSync}}); err != nil {
		t.Fatal(err)
	}
	if s, _ := db.StudentByNIS(ctx, "0012345"); s.Status != "active" || !s.StatusOn.IsZero() || s.Aid.Any() {
		t.Fatalf("a new student: %+v", s)
	}
	left := time.Date(2027, 1, 15, 0, 0, 0, 0, time.UTC)
	if err := db.SetStudentStatus(ctx, nil, "0012345", "moved", left, "pindah ke Bandung"); err != nil {
		t.Fatal(err)
	}
	if err := db.SetStudentStatus(ctx, nil, "nope", "left", left, ""); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("an unknown NIS: %v", err)
	}
	missing, err := db.SetStudentAid(ctx, map[string]store.StudentAid{"0012346": {KIP: true, PIP: true}, "nope": {KPS: true}})
	if err != nil || missing != 1 {
		t.Fatalf("aid: %d missing, %v", missing, err)
	}
	// The sync comes again with the service's records.
	if err := db.UpsertStudents(ctx, []store.Student{{NIS: "0012345", Name: "Budi S", Description: "Kelas 9A", Source: store.SourceSync},
		{NIS: "0012346", Name: "Sari", Description: "Kelas 9B", Source: store.SourceSync}}); err != nil {
		t.Fatal(err)
	}
	if s, _ := db.StudentByNIS(ctx, "0012345"); s.Status != "moved" || !s.StatusOn.Equal(left) || s.StatusNote != "pindah ke Bandung" || s.Name != "Budi S" {
		t.Fatalf("the leaver after a sync: %+v", s)
	}
	if s, _ := db.StudentByNIS(ctx, "0012346"); s.Aid != (store.StudentAid{KIP: true, PIP: true}) || s.Description != "Kelas 9B" {
		t.Fatalf("the aid flags after a sync: %+v", s)
	}
}
