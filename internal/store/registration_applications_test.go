package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/store"
)

func TestRegistrationApplications(t *testing.T) {
	t.Parallel()
	eachDB(t, testRegistrationApplications)
}

// testRegistrationApplications: applications are stored and read back whole, listed by
// state in either order, moved only from the states named (and only the fields a move
// sets change), and the automatic sends counted by time.
func testRegistrationApplications(t *testing.T, db *store.DB) {
	ctx := context.Background()
	at := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	a := store.RegistrationApplication{ID: "a1", Reference: "PD-AAAA2222", NIS: "2027001", StudentName: "Rina", ContactName: "Budi",
		Phone: "0812", Email: "b@example.id", Description: "Kelas 7", TemplateID: "t1", TemplateName: "SMP", Total: 5_000_000,
		Components: []store.RegisteredComponent{{Name: "Uang Pangkal", AccountCode: "SPP", Amount: 5_000_000, Due: feeDay(2026, 12, 6), Expiry: feeDay(2027, 1, 21)}},
		IP:         "10.0.0.9", State: "new", CreatedAt: at, UpdatedAt: at}
	if err := db.AddRegistrationApplication(ctx, a); err != nil {
		t.Fatal(err)
	}
	b := a
	b.ID, b.NIS, b.CreatedAt = "a2", "2027002", at.Add(time.Minute)
	if err := db.AddRegistrationApplication(ctx, b); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("the same reference again: %v", err)
	}
	b.Reference = "PD-BBBB3333"
	if err := db.AddRegistrationApplication(ctx, b); err != nil {
		t.Fatal(err)
	}
	got, err := db.RegistrationApplication(ctx, "a1")
	if err != nil || got.Reference != a.Reference || got.ContactName != "Budi" || len(got.Components) != 1 ||
		got.Components[0] != a.Components[0] || !got.CreatedAt.Equal(at) || !got.SentAt.IsZero() || got.Auto {
		t.Fatalf("read back %+v %v", got, err)
	}
	if _, err := db.RegistrationApplication(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown: %v", err)
	}
	list, err := db.RegistrationApplications(ctx, []string{"new"}, true, 0, 10)
	if err != nil || len(list) != 2 || list[0].ID != "a1" {
		t.Fatalf("oldest first: %d %v", len(list), err)
	}
	if list, _ := db.RegistrationApplications(ctx, []string{"new", "pending"}, false, 0, 1); len(list) != 1 || list[0].ID != "a2" {
		t.Fatalf("newest first: %+v", list)
	}

	// Sent on its own: counted by when.
	sent := at.Add(5 * time.Minute)
	moved, err := db.MoveRegistrationApplication(ctx, store.ApplicationChange{ID: "a1", From: []string{"new"}, To: "sending", SentAt: sent, Auto: true, At: sent})
	if err != nil || !moved {
		t.Fatalf("to sending: %v %v", moved, err)
	}
	if moved, _ := db.MoveRegistrationApplication(ctx, store.ApplicationChange{ID: "a1", From: []string{"new"}, To: "pending", At: sent}); moved {
		t.Fatal("moved from a state it was not in")
	}
	if n, err := db.CountAutoSentSince(ctx, sent); err != nil || n != 1 {
		t.Fatalf("sent since: %d %v", n, err)
	}
	if n, _ := db.CountAutoSentSince(ctx, sent.Add(time.Second)); n != 0 {
		t.Fatalf("sent since later: %d", n)
	}
	// A later move keeps what it does not set.
	if moved, err := db.MoveRegistrationApplication(ctx, store.ApplicationChange{ID: "a1", From: []string{"sending"}, To: "registered",
		BillID: "bill-9", At: sent.Add(time.Second)}); err != nil || !moved {
		t.Fatalf("to registered: %v %v", moved, err)
	}
	got, _ = db.RegistrationApplication(ctx, "a1")
	if got.State != "registered" || got.BillID != "bill-9" || !got.Auto || !got.SentAt.Equal(sent) || got.Hold != "" {
		t.Fatalf("registered: %+v", got)
	}
	// A person's decision.
	if moved, err := db.MoveRegistrationApplication(ctx, store.ApplicationChange{ID: "a2", From: []string{"new"}, To: "pending", Hold: "over_cap", At: sent}); err != nil || !moved {
		t.Fatalf("to pending: %v %v", moved, err)
	}
	if moved, err := db.MoveRegistrationApplication(ctx, store.ApplicationChange{ID: "a2", From: []string{"pending"}, To: "rejected", Hold: "over_cap",
		DecidedBy: "finance", DecidedAt: sent, Reason: "dobel", At: sent}); err != nil || !moved {
		t.Fatalf("to rejected: %v %v", moved, err)
	}
	got, _ = db.RegistrationApplication(ctx, "a2")
	if got.State != "rejected" || got.Hold != "over_cap" || got.DecidedBy != "finance" || !got.DecidedAt.Equal(sent) || got.Reason != "dobel" || got.Auto {
		t.Fatalf("rejected: %+v", got)
	}
	if n, err := db.CountRegistrationApplications(ctx, "rejected"); err != nil || n != 1 {
		t.Fatalf("count: %d %v", n, err)
	}
}
