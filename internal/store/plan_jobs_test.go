package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/store"
)

// TestSavePlanItems stores a job's items (more than one statement's worth) and saves a
// chunk's progress as the apply job does: its items sent, then
// answered (each with the component made for it, more than one statement's worth, one of
// them refused), and reads each item back with its own component, state and attempts,
// and the job's counts moved by what changed.
func TestSavePlanItems(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		const n = 130
		j := store.PlanJob{ID: store.NewID(), PlanID: "p1", PlanCode: "SPP26", Selection: "7A", FromMonth: "2026-07",
			ToMonth: "2027-06", State: "queued", ActorID: "u1", Actor: "finance", ActorRole: "finance"}
		items := make([]store.PlanItem, n)
		for i := range items {
			items[i] = store.PlanItem{Seq: i + 1, Chunk: i / 100, NIS: fmt.Sprintf("26%03d", i), StudentName: "Siswa",
				Class: "7A", Period: "2026-07", Name: "SPP Juli 2026", FullAmount: 350_000, Amount: 350_000,
				Due: time.Date(2026, 7, 10, 0, 0, 0, 0, time.UTC), Expiry: time.Date(2026, 7, 30, 0, 0, 0, 0, time.UTC),
				State: "pending"}
		}
		if err := db.CreatePlanJob(ctx, j, items, store.AuditEntry{At: time.Now(), Actor: "finance", Action: "plan.apply", Outcome: "ok"}); err != nil {
			t.Fatal(err)
		}
		sentAt := time.Date(2026, 7, 1, 3, 0, 0, 0, time.UTC)
		var sent []store.PlanItemChange
		for i := range n {
			sent = append(sent, store.PlanItemChange{Seq: i + 1, From: "pending", State: "sent", At: sentAt})
		}
		if err := db.SavePlanItems(ctx, j.ID, sent); err != nil {
			t.Fatal(err)
		}
		doneAt := sentAt.Add(time.Second)
		var answered []store.PlanItemChange
		for i := range n {
			c := store.PlanItemChange{Seq: i + 1, From: "sent", State: "done", At: doneAt, ComponentID: fmt.Sprintf("comp-%03d", i+1)}
			if i == 7 {
				c = store.PlanItemChange{Seq: i + 1, From: "sent", State: "failed", Problem: "amount: too large", At: doneAt}
			}
			answered = append(answered, c)
		}
		if err := db.SavePlanItems(ctx, j.ID, answered); err != nil {
			t.Fatal(err)
		}
		got, err := db.PlanItems(ctx, j.ID)
		if err != nil || len(got) != n {
			t.Fatalf("%d items, %v", len(got), err)
		}
		for i, it := range got {
			want, state, problem := fmt.Sprintf("comp-%03d", i+1), "done", ""
			if i == 7 {
				want, state, problem = "", "failed", "amount: too large"
			}
			if it.NIS != fmt.Sprintf("26%03d", i) || it.Chunk != i/100 || it.Amount != 350_000 || it.Period != "2026-07" ||
				!it.Due.Equal(items[i].Due) || !it.Expiry.Equal(items[i].Expiry) || !it.Active.IsZero() {
				t.Fatalf("item %d as stored: %+v, want %+v", i+1, it, items[i])
			}
			if it.Seq != i+1 || it.ComponentID != want || it.State != state || it.Problem != problem || it.Attempts != 1 ||
				!it.UpdatedAt.Equal(doneAt) {
				t.Fatalf("item %d: %+v, want component %q, %s %q, one attempt, at %v", i+1, it, want, state, problem, doneAt)
			}
		}
		pj, err := db.PlanJobByID(ctx, j.ID)
		if err != nil || pj.Done != n-1 || pj.Failed != 1 || pj.Skipped != 0 {
			t.Fatalf("job %+v, %v: want %d done, 1 failed", pj, err, n-1)
		}
		// A save that only carries a component already kept leaves it as it was.
		if err := db.SavePlanItems(ctx, j.ID, []store.PlanItemChange{{Seq: 1, From: "done", State: "done", At: doneAt}}); err != nil {
			t.Fatal(err)
		}
		if it, _ := db.PlanItems(ctx, j.ID, "done"); it[0].ComponentID != "comp-001" {
			t.Fatalf("item 1 lost its component: %+v", it[0])
		}
	})
}
