package store_test

import (
	"errors"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/store"
)

func TestSessions(t *testing.T) {
	eachDB(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		t0 := time.Date(2026, 3, 2, 1, 0, 0, 0, time.UTC)
		at := func(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }
		siti := store.User{Username: "siti", Role: "finance", PasswordHash: "hash-1"}
		budi := store.User{Username: "budi", Role: store.AdminRole, PasswordHash: "hash-b"}
		for _, u := range []*store.User{&siti, &budi} {
			if err := db.CreateUser(ctx, u); err != nil {
				t.Fatal(err)
			}
		}
		create := func(u store.User, token string, min int, ua string) store.Session {
			t.Helper()
			s := store.Session{UserID: u.ID, CreatedAt: at(min), LastSeenAt: at(min), Addr: "10.0.0.1", UserAgent: ua}
			if err := db.CreateSession(ctx, &s, token, u.PasswordHash); err != nil {
				t.Fatalf("CreateSession(%s): %v", token, err)
			}
			return s
		}
		laptop := create(siti, "hash-of-laptop", 0, "Firefox on Windows")
		phone := create(siti, "hash-of-phone", 5, "Chrome on Android")
		create(budi, "hash-of-budi", 1, "Safari on macOS")

		s, u, err := db.SessionByToken(ctx, "hash-of-laptop")
		if err != nil || s.ID != laptop.ID || u.ID != siti.ID || u.Username != "siti" || u.Role != "finance" ||
			!s.CreatedAt.Equal(at(0)) || s.UserAgent != "Firefox on Windows" || s.Addr != "10.0.0.1" {
			t.Fatalf("SessionByToken = %+v, %+v, %v", s, u, err)
		}
		if _, _, err := db.SessionByToken(ctx, "laptop"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("unknown token: err = %v", err)
		}
		// A session is stored only while the checked password and the enabled account hold.
		stale := store.Session{UserID: siti.ID, CreatedAt: at(6), LastSeenAt: at(6)}
		if err := db.CreateSession(ctx, &stale, "hash-stale", "hash-0"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("session with an outdated password hash: err = %v", err)
		}
		if _, _, err := db.SessionByToken(ctx, "hash-stale"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("the refused session was stored: %v", err)
		}

		// Activity moves forward only, with the address it came from.
		if err := db.TouchSession(ctx, laptop.ID, at(30), "10.0.0.2"); err != nil {
			t.Fatal(err)
		}
		if err := db.TouchSession(ctx, laptop.ID, at(20), "10.0.0.3"); err != nil {
			t.Fatal(err)
		}
		if s, _, _ := db.SessionByToken(ctx, "hash-of-laptop"); !s.LastSeenAt.Equal(at(30)) || s.Addr != "10.0.0.2" {
			t.Errorf("after touches: %+v", s)
		}

		list, err := db.UserSessions(ctx, siti.ID, at(-60), at(-60))
		if err != nil || len(list) != 2 || list[0].ID != laptop.ID || list[1].ID != phone.ID {
			t.Fatalf("UserSessions = %+v, %v; want laptop then phone", list, err)
		}
		if list, _ := db.UserSessions(ctx, siti.ID, at(10), at(-60)); len(list) != 1 || list[0].ID != laptop.ID {
			t.Errorf("UserSessions seen since 10 = %+v", list)
		}
		if list, _ := db.UserSessions(ctx, siti.ID, at(-60), at(1)); len(list) != 1 || list[0].ID != phone.ID {
			t.Errorf("UserSessions created since 1 = %+v", list)
		}

		// Ending one: only the owner's id matches.
		if err := db.DeleteSession(ctx, budi.ID, phone.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("ending siti's session as budi's: err = %v", err)
		}
		if err := db.DeleteSession(ctx, siti.ID, phone.ID); err != nil {
			t.Fatal(err)
		}
		if err := db.DeleteSession(ctx, siti.ID, phone.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("ending it twice: err = %v", err)
		}
		if got, err := db.DeleteSessionByToken(ctx, "hash-of-laptop"); err != nil || got.ID != laptop.ID || got.UserID != siti.ID {
			t.Errorf("DeleteSessionByToken = %+v, %v", got, err)
		}
		if _, err := db.DeleteSessionByToken(ctx, "hash-of-laptop"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("DeleteSessionByToken twice: err = %v", err)
		}

		// A change that ends sessions does so in its own transaction: all or nothing.
		create(siti, "hash-a", 40, "")
		create(siti, "hash-b", 41, "")
		hash := "hash-2"
		if n, err := db.UpdateUserEndingSessions(ctx, siti.ID, store.UserChange{PasswordHash: &hash}); err != nil || n != 2 {
			t.Fatalf("UpdateUserEndingSessions = %d, %v; want 2", n, err)
		}
		if got, _ := db.UserByID(ctx, siti.ID); got.PasswordHash != "hash-2" {
			t.Errorf("password hash = %q", got.PasswordHash)
		}
		siti.PasswordHash = "hash-2"
		if list, _ := db.UserSessions(ctx, siti.ID, at(-60), at(-60)); len(list) != 0 {
			t.Errorf("sessions left after the change: %+v", list)
		}
		finance := "finance"
		if _, err := db.UpdateUserEndingSessions(ctx, budi.ID, store.UserChange{Role: &finance}); !errors.Is(err, store.ErrLastAdmin) {
			t.Fatalf("demoting the last admin: err = %v", err)
		}
		if _, _, err := db.SessionByToken(ctx, "hash-of-budi"); err != nil {
			t.Errorf("a refused change ended the session: %v", err)
		}
		disabled := true
		create(siti, "hash-c", 50, "")
		if _, err := db.UpdateUserEndingSessions(ctx, siti.ID, store.UserChange{Disabled: &disabled}); err != nil {
			t.Fatal(err)
		}
		off := store.Session{UserID: siti.ID, CreatedAt: at(51), LastSeenAt: at(51)}
		if err := db.CreateSession(ctx, &off, "hash-d", "hash-2"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("session for a disabled account: err = %v", err)
		}
		if n, err := db.DeleteUserSessions(ctx, budi.ID); err != nil || n != 1 {
			t.Errorf("DeleteUserSessions = %d, %v", n, err)
		}

		// Pruning drops the idle and the too old.
		enabled := false
		if err := db.UpdateUser(ctx, siti.ID, store.UserChange{Disabled: &enabled}); err != nil {
			t.Fatal(err)
		}
		u, _ = db.UserByID(ctx, siti.ID)
		old := create(u, "hash-old", 0, "")
		db.TouchSession(ctx, old.ID, at(100), "")
		create(u, "hash-idle", 10, "")
		fresh := create(u, "hash-fresh", 90, "")
		if n, err := db.PruneSessions(ctx, at(60), at(5)); err != nil || n != 2 {
			t.Fatalf("PruneSessions = %d, %v; want 2", n, err)
		}
		list, _ = db.UserSessions(ctx, siti.ID, at(-60), at(-60))
		if len(list) != 1 || list[0].ID != fresh.ID {
			t.Errorf("after prune: %+v", list)
		}
		if _, _, err := db.SessionByToken(ctx, "hash-fresh"); err != nil {
			t.Error(err)
		}
	})
}
