package store_test

import (
	"errors"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/store"
)

func TestFollowUpsRecordedWithTheirAudit(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		if _, err := db.LastFollowUp(ctx, "2024001", ""); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("none yet: %v", err)
		}
		at := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
		for i, ch := range []string{"letter", "whatsapp"} {
			f := store.FollowUp{NIS: "2024001", Channel: ch, At: at.Add(time.Duration(i) * time.Hour), Actor: "finance", ActorName: "Sri",
				Components: 2, Total: 1_350_000}
			if _, err := db.RecordFollowUp(ctx, f, store.AuditEntry{Actor: "finance", Action: "followup." + ch, Target: "2024001", Outcome: "ok",
				Args: store.AuditArgs{"nis": "2024001", "total": "1350000"}}); err != nil {
				t.Fatal(err)
			}
		}
		last, err := db.LastFollowUp(ctx, "2024001", "")
		if err != nil || last.Channel != "whatsapp" || !last.At.Equal(at.Add(time.Hour)) || last.ActorName != "Sri" || last.Components != 2 || last.Total != 1_350_000 {
			t.Errorf("last = %+v, %v", last, err)
		}
		if letter, err := db.LastFollowUp(ctx, "2024001", "letter"); err != nil || !letter.At.Equal(at) {
			t.Errorf("last letter = %+v, %v", letter, err)
		}
		entries, n, err := db.ListAudit(ctx, store.AuditFilter{Action: "followup.whatsapp"})
		if err != nil || n != 1 || entries[0].Args["total"] != "1350000" {
			t.Errorf("audit: %d %+v %v", n, entries, err)
		}
		// A follow-up whose audit entry cannot be written (its id is taken) is not kept either.
		later := store.FollowUp{NIS: "2024001", Channel: "letter", At: at.Add(2 * time.Hour), Actor: "finance"}
		if _, err := db.RecordFollowUp(ctx, later, store.AuditEntry{ID: entries[0].ID, Action: "followup.letter"}); err == nil {
			t.Error("recorded with an audit entry that could not be written")
		}
		if again, err := db.LastFollowUp(ctx, "2024001", ""); err != nil || again.ID != last.ID {
			t.Errorf("after the failed one, last = %+v, %v", again, err)
		}
	})
}
