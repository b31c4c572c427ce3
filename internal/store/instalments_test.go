package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/store"
)

// TestInstalmentSplits: one split per component and one undo per split, on both engines;
// a split that made nothing frees its component, an undo that made nothing its split.
func TestInstalmentSplits(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		job := func() store.CorrectionJob {
			return store.CorrectionJob{ID: store.NewID(), Kind: "replace", Source: "split", State: "queued", ActorID: "u", Actor: "finance", ActorRole: "finance"}
		}
		items := []store.CorrectionItem{{Seq: 0, Chunk: 0, NIS: "2601", Name: "Uang Pangkal, cicilan 1/2", Amount: 3_000_000, State: "pending"},
			{Seq: 1, Chunk: 0, NIS: "2601", Name: "Uang Pangkal, cicilan 2/2", Amount: 3_000_000, State: "pending"},
			{Seq: 2, Chunk: 1, ComponentID: "orig", NIS: "2601", Name: "Uang Pangkal", Amount: 6_000_000, State: "pending"}}
		rec := store.InstalmentSplit{OriginalID: "orig", NIS: "2601", Name: "Uang Pangkal", Amount: 6_000_000, Parts: 2}
		first := job()
		if err := db.CreateSplitJob(ctx, rec, first, items); err != nil {
			t.Fatal(err)
		}
		if err := db.CreateSplitJob(ctx, rec, job(), items); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("second split: %v", err)
		}
		if err := db.CreateSplitUndoJob(ctx, rec, job(), items); err != nil {
			t.Fatalf("undo: %v", err)
		}
		if err := db.CreateSplitUndoJob(ctx, rec, job(), items); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("second undo: %v", err)
		}
		got, err := db.InstalmentSplitOf(ctx, "orig")
		if err != nil || got.JobID != first.ID || got.UndoJobID == "" || got.Void || got.Parts != 2 {
			t.Fatalf("split: %+v %v", got, err)
		}
		// The undo made nothing: another undo may be tried.
		if err := db.EndInstalmentJob(ctx, got.UndoJobID); err != nil {
			t.Fatal(err)
		}
		if err := db.CreateSplitUndoJob(ctx, rec, job(), items); err != nil {
			t.Fatalf("undo after one that made nothing: %v", err)
		}
		// A split that made nothing: its component may be split again.
		other := store.InstalmentSplit{OriginalID: "other", NIS: "2601", Name: "Seragam", Amount: 900_000, Parts: 3}
		j := job()
		if err := db.CreateSplitJob(ctx, other, j, nil); err != nil {
			t.Fatal(err)
		}
		if err := db.EndInstalmentJob(ctx, j.ID); err != nil {
			t.Fatal(err)
		}
		if err := db.CreateSplitUndoJob(ctx, other, job(), nil); !errors.Is(err, store.ErrConflict) {
			t.Errorf("undo of a split that made nothing: %v", err)
		}
		again := job()
		if err := db.CreateSplitJob(ctx, other, again, nil); err != nil {
			t.Fatalf("split again: %v", err)
		}
		// A split known only from the service's records gets its row with its undo.
		if err := db.CreateSplitUndoJob(ctx, store.InstalmentSplit{OriginalID: "known-from-service", NIS: "2602", Parts: 3}, job(), nil); err != nil {
			t.Fatal(err)
		}
		list, err := db.InstalmentSplits(ctx, "2601")
		if err != nil || len(list) != 2 {
			t.Fatalf("splits of 2601: %+v %v", list, err)
		}
		// Items added on the way count in the job's total; a made item keeps its id.
		if err := db.AddCorrectionItems(ctx, first.ID, []store.CorrectionItem{{Seq: 3, Chunk: 2, ComponentID: "p1", NIS: "2601", State: "pending"}}); err != nil {
			t.Fatal(err)
		}
		if err := db.SetCorrectionItemComponent(ctx, first.ID, 0, "p0"); err != nil {
			t.Fatal(err)
		}
		fj, _ := db.CorrectionJobByID(ctx, first.ID)
		its, _ := db.CorrectionItems(ctx, first.ID)
		if fj.Total != 4 || len(its) != 4 || its[0].ComponentID != "p0" || its[3].Chunk != 2 {
			t.Errorf("job total %d, items %+v", fj.Total, its)
		}
	})
}

// TestStudentStanding: a standing set with its audit entry in one transaction, read back
// and listed among the former students; an unknown NIS changes nothing.
func TestStudentStanding(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		if err := db.UpsertStudents(ctx, []store.Student{{NIS: "2601", Name: "Budi", Description: "Kelas 9A", Source: store.SourcePortal},
			{NIS: "2602", Name: "Citra", Description: "Kelas 7A", Source: store.SourcePortal}}); err != nil {
			t.Fatal(err)
		}
		on := time.Date(2027, 6, 30, 0, 0, 0, 0, time.UTC)
		e := store.AuditEntry{At: time.Now().UTC(), Actor: "finance", Action: "students.status", Target: "2601", Outcome: "ok"}
		if err := db.SetStudentStanding(ctx, "2601", "graduated", on, "lulus", e); err != nil {
			t.Fatal(err)
		}
		if err := db.SetStudentStanding(ctx, "nope", "left", on, "x", e); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("unknown NIS: %v", err)
		}
		st, _ := db.StudentByNIS(ctx, "2601")
		if st.Status != "graduated" || !st.StatusOn.Equal(on) || st.StatusNote != "lulus" {
			t.Errorf("standing: %+v", st)
		}
		former, err := db.StudentsNotActive(ctx)
		if err != nil || len(former) != 1 || former[0].NIS != "2601" {
			t.Errorf("former: %+v %v", former, err)
		}
		list, total, err := db.ListStudents(ctx, store.StudentFilter{Statuses: []string{"active"}})
		if err != nil || total != 1 || list[0].NIS != "2602" {
			t.Errorf("active students: %+v %d %v", list, total, err)
		}
		entries, n, err := db.ListAudit(ctx, store.AuditFilter{Action: "students.status", Limit: 10})
		if err != nil || n != 1 || len(entries) != 1 {
			t.Errorf("audit: %d %v (the refused one must not be recorded)", n, err)
		}
	})
}
