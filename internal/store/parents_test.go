package store_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/store"
)

// The tables of issue 28 on both engines: parents' contacts with their audit entry, the
// parent page link (created once, replaced only from the generation read), the letter
// batches' numbers (consecutive, kept per key), and the messages with their statuses
// moving only forward.
func TestParentsLettersAndMessages(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		at := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
		if _, err := db.ParentContacts(ctx, "1001"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("none yet: %v", err)
		}
		c := store.ParentContacts{NIS: "1001", Name: "Ibu Sri", WhatsApp: "081311112222", Email: "sri@example.id", EmailOptOut: true, UpdatedAt: at, UpdatedBy: "finance"}
		if err := db.SaveParentContacts(ctx, c, store.AuditEntry{Actor: "finance", Action: "parents.contacts", Target: "1001", Outcome: "ok"}); err != nil {
			t.Fatal(err)
		}
		got, err := db.ParentContacts(ctx, "1001")
		if err != nil || got != c {
			t.Fatalf("contacts %+v %v", got, err)
		}
		many, err := db.ParentContactsOf(ctx, []string{"1001", "1002"})
		if err != nil || len(many) != 1 || many["1001"].Name != "Ibu Sri" {
			t.Fatalf("contacts of many %+v %v", many, err)
		}

		l, err := db.CreateParentLink(ctx, store.ParentLink{NIS: "1001", TokenHash: "h1", Generation: 1, CreatedAt: at})
		if err != nil || l.Generation != 1 {
			t.Fatalf("create link %+v %v", l, err)
		}
		if again, _ := db.CreateParentLink(ctx, store.ParentLink{NIS: "1001", TokenHash: "h-other", Generation: 1, CreatedAt: at}); again.TokenHash != "h1" {
			t.Fatalf("a second create replaced the link: %+v", again)
		}
		if err := db.ReplaceParentLink(ctx, store.ParentLink{NIS: "1001", TokenHash: "h2", Generation: 2, CreatedAt: at}, 1,
			store.AuditEntry{Actor: "finance", Action: "parents.link_renew", Target: "1001", Outcome: "ok"}); err != nil {
			t.Fatal(err)
		}
		if err := db.ReplaceParentLink(ctx, store.ParentLink{NIS: "1001", TokenHash: "h3", Generation: 2, CreatedAt: at}, 1,
			store.AuditEntry{Actor: "finance", Action: "parents.link_renew", Target: "1001", Outcome: "ok"}); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("a renewal from a stale generation: %v", err)
		}
		if _, err := db.ParentLinkByHash(ctx, "h1"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("the old hash still finds the link: %v", err)
		}
		if l, err := db.ParentLinkByHash(ctx, "h2"); err != nil || l.NIS != "1001" || l.Generation != 2 {
			t.Fatalf("by hash %+v %v", l, err)
		}

		first, err := db.LetterBatch(ctx, "k1", "letter:x", 3)
		if err != nil || first != 1 {
			t.Fatalf("first batch %d %v", first, err)
		}
		if again, _ := db.LetterBatch(ctx, "k1", "letter:x", 3); again != 1 {
			t.Fatalf("the same batch again: %d", again)
		}
		if next, _ := db.LetterBatch(ctx, "k2", "letter:x", 2); next != 4 {
			t.Fatalf("the next batch: %d", next)
		}

		m, err := db.AddMessage(ctx, store.Message{Channel: "whatsapp", Kind: "test", Recipient: "6281", ProviderID: "wamid.A", Status: "sent",
			StatusRank: 1, CreatedAt: at}, &store.AuditEntry{Actor: "admin", Action: "messages.test", Outcome: "ok"})
		if err != nil || m.ID == "" {
			t.Fatal(err)
		}
		if ok, err := db.MessageStatus(ctx, "wamid.A", "read", 3, at.Add(time.Minute), "", ""); !ok || err != nil {
			t.Fatalf("read: %v %v", ok, err)
		}
		if ok, _ := db.MessageStatus(ctx, "wamid.A", "delivered", 2, at.Add(2*time.Minute), "", ""); ok {
			t.Fatal("a late delivered moved the message back")
		}
		ms, total, err := db.Messages(ctx, store.MessageFilter{Channel: "whatsapp"})
		if err != nil || total != 1 || ms[0].Status != "read" || !ms[0].StatusAt.Equal(at.Add(time.Minute)) || !ms[0].CreatedAt.Equal(at) {
			t.Fatalf("messages %+v %d %v", ms, total, err)
		}
		es, _, _ := db.ListAudit(ctx, store.AuditFilter{})
		if len(es) != 3 {
			t.Errorf("%d audit entries, want 3", len(es))
		}

		// The webhook quicker than the recording of the send's answer: its statuses wait
		// for the message and the highest is applied when it is recorded.
		for _, st := range []struct {
			status string
			rank   int
		}{{"delivered", 2}, {"read", 3}, {"sent", 1}, {"read", 3}} {
			if ok, err := db.MessageStatus(ctx, "wamid.B", st.status, st.rank, at.Add(time.Duration(st.rank)*time.Second), "", ""); ok || err != nil {
				t.Fatalf("%s before the message: %v %v", st.status, ok, err)
			}
		}
		early, err := db.AddMessage(ctx, store.Message{Channel: "whatsapp", Kind: "receipt", Recipient: "6282", ProviderID: "wamid.B", Status: "sent",
			StatusRank: 1, CreatedAt: at}, nil)
		if err != nil || early.Status != "read" || early.StatusRank != 3 || !early.StatusAt.Equal(at.Add(3*time.Second)) {
			t.Fatalf("the message recorded after its statuses: %+v %v", early, err)
		}
		ms, _, _ = db.Messages(ctx, store.MessageFilter{Channel: "whatsapp"})
		if i := slices.IndexFunc(ms, func(m store.Message) bool { return m.ProviderID == "wamid.B" }); i < 0 || ms[i].Status != "read" {
			t.Fatalf("as stored: %+v", ms)
		}
		// A status of a message the portal never sent (another app on the number) is kept
		// a week, then pruned; the applied ones were forgotten at once.
		if _, err := db.MessageStatus(ctx, "wamid.other", "sent", 1, at, "", ""); err != nil {
			t.Fatal(err)
		}
		if n, err := db.PruneEarlyMessageStatuses(ctx, db.Now().Add(-time.Hour)); err != nil || n != 0 {
			t.Fatalf("pruned a fresh status: %d %v", n, err)
		}
		if n, err := db.PruneEarlyMessageStatuses(ctx, db.Now().Add(time.Hour)); err != nil || n != 1 {
			t.Fatalf("pruned %d stray statuses, want 1 (wamid.B's forgotten when applied): %v", n, err)
		}
	})
}
