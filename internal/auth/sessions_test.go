package auth_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/store"
)

var laptop = auth.Device{Addr: "10.0.0.1", UserAgent: "Firefox on Windows"}

// signIn signs username in with password and starts a session, returning its token.
func (f *fixture) signIn(t *testing.T, username, password string) string {
	t.Helper()
	u, err := f.svc.SignIn(t.Context(), username, password, laptop.Addr)
	if err != nil {
		t.Fatalf("SignIn(%s): %v", username, err)
	}
	token, err := f.svc.StartSession(t.Context(), u, laptop)
	if err != nil {
		t.Fatalf("StartSession(%s): %v", username, err)
	}
	return token
}

// live reports whether token still opens a session.
func (f *fixture) live(t *testing.T, token string) bool {
	t.Helper()
	_, _, err := f.svc.Session(t.Context(), token, laptop)
	if err != nil && !errors.Is(err, auth.ErrNoSession) {
		t.Fatal(err)
	}
	return err == nil
}

func TestSessionLifecycle(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	siti := f.user(t, "siti", auth.Finance, sitiPassword)
	start := f.clock
	token := f.signIn(t, "siti", sitiPassword)

	sess, u, err := f.svc.Session(ctx, token, laptop)
	if err != nil || u.ID != siti.ID || sess.UserID != siti.ID || !sess.CreatedAt.Equal(start) ||
		sess.Addr != "10.0.0.1" || sess.UserAgent != "Firefox on Windows" {
		t.Fatalf("Session = %+v, %+v, %v", sess, u, err)
	}
	// The database keeps a hash of the token, never the token.
	if _, _, err := f.db.SessionByToken(ctx, token); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("session found under the raw token: %v", err)
	}
	sum := sha256.Sum256([]byte(token))
	if _, _, err := f.db.SessionByToken(ctx, hex.EncodeToString(sum[:])); err != nil {
		t.Errorf("session not found under the token's hash: %v", err)
	}
	for _, bad := range []string{"", "x", token + "x", strings.ToUpper(token)} {
		if _, _, err := f.svc.Session(ctx, bad, laptop); !errors.Is(err, auth.ErrNoSession) {
			t.Errorf("Session(%q): err = %v", bad, err)
		}
	}

	// Activity is written at most once a minute, with the address it came from.
	phone := auth.Device{Addr: "10.0.0.9", UserAgent: "Chrome on Android"}
	f.advance(30 * time.Second)
	if sess, _, _ = f.svc.Session(ctx, token, phone); !sess.LastSeenAt.Equal(start) || sess.Addr != "10.0.0.1" {
		t.Errorf("after 30s: %+v, want no write", sess)
	}
	f.advance(31 * time.Second)
	if sess, _, _ = f.svc.Session(ctx, token, phone); !sess.LastSeenAt.Equal(f.clock) || sess.Addr != "10.0.0.9" {
		t.Errorf("after 61s: %+v, want last seen now from 10.0.0.9", sess)
	}
	stored, _ := f.svc.Sessions(ctx, auth.UserActor(siti, ""), siti.ID)
	if len(stored) != 1 || !stored[0].LastSeenAt.Equal(f.clock) || stored[0].UserAgent != "Firefox on Windows" {
		t.Errorf("stored session = %+v", stored)
	}

	// Idle for longer than SessionIdle: gone, and deleted.
	f.svc.SessionIdle = 2 * time.Hour
	f.advance(2*time.Hour - time.Second)
	if !f.live(t, token) {
		t.Fatal("session ended before the idle limit")
	}
	f.advance(2*time.Hour + time.Second)
	if f.live(t, token) {
		t.Fatal("session outlived the idle limit")
	}
	if list, _ := f.svc.Sessions(ctx, auth.UserActor(siti, ""), siti.ID); len(list) != 0 {
		t.Errorf("expired session still listed: %+v", list)
	}

	// However active, a session ends after SessionLifetime.
	f.svc.SessionLifetime = 24 * time.Hour
	token = f.signIn(t, "siti", sitiPassword)
	for range 23 {
		f.advance(time.Hour)
		if !f.live(t, token) {
			t.Fatal("active session ended early")
		}
	}
	f.advance(time.Hour + time.Second)
	if f.live(t, token) {
		t.Fatal("session outlived its lifetime")
	}
}

// Each change to a person's access ends every session they have, on every device, and
// the audit entry says how many.
func TestAccessChangesEndSessions(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	admin := f.user(t, "kepala.tu", auth.Admin, "kunci-gudang-sekolah")
	asAdmin := auth.UserActor(admin, "10.0.0.10")
	siti := f.user(t, "siti", auth.Finance, sitiPassword)
	asSiti := auth.UserActor(siti, "10.0.0.11")
	password := sitiPassword

	tests := []struct {
		name   string
		change func() error
		action string
	}{
		{"admin resets the password", func() error {
			password = "password-dari-admin"
			return f.svc.SetPassword(ctx, asAdmin, siti.ID, password)
		}, "staff.password"},
		{"own password change", func() error {
			old := password
			password = "password-saya-sendiri"
			token, err := f.svc.ChangePassword(ctx, asSiti, old, password, laptop)
			if err == nil && !f.live(t, token) {
				t.Error("no new session for the device the password was changed from")
			}
			return err
		}, "staff.password"},
		{"role change", func() error { return f.svc.SetRole(ctx, asAdmin, siti.ID, auth.Principal) }, "staff.role"},
		{"disable", func() error { return f.svc.SetDisabled(ctx, asAdmin, siti.ID, true) }, "staff.disable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := f.svc.SetDisabled(ctx, asAdmin, siti.ID, false); err != nil {
				t.Fatal(err)
			}
			a, b := f.signIn(t, "siti", password), f.signIn(t, "siti", password)
			other := f.signIn(t, "kepala.tu", "kunci-gudang-sekolah")
			if err := tt.change(); err != nil {
				t.Fatal(err)
			}
			if f.live(t, a) || f.live(t, b) {
				t.Error("a session survived the change")
			}
			if !f.live(t, other) {
				t.Error("someone else's session ended")
			}
			entries := f.audit(t, store.AuditFilter{Action: tt.action})
			if d := entries[len(entries)-1].Detail; !strings.Contains(d, "2 sessions ended") {
				t.Errorf("audit detail = %q, want the sessions ended", d)
			}
		})
	}
	// Disabled, then enabled again: the old session stays ended.
	if err := f.svc.SetDisabled(ctx, asAdmin, siti.ID, false); err != nil {
		t.Fatal(err)
	}
	token := f.signIn(t, "siti", password)
	if err := f.svc.SetDisabled(ctx, asAdmin, siti.ID, true); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.SetDisabled(ctx, asAdmin, siti.ID, false); err != nil {
		t.Fatal(err)
	}
	if f.live(t, token) {
		t.Error("session alive again after disable, then enable")
	}
	// A refused change ends nothing.
	token = f.signIn(t, "kepala.tu", "kunci-gudang-sekolah")
	if err := f.svc.SetRole(ctx, asAdmin, admin.ID, auth.Finance); !errors.Is(err, auth.ErrLastAdmin) {
		t.Fatalf("demote the last admin: %v", err)
	}
	if !f.live(t, token) {
		t.Error("a refused change ended the session")
	}
}

// A reset that lands between the password check and the session's start wins.
func TestStartSessionAfterReset(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	f.user(t, "siti", auth.Finance, sitiPassword)
	u, err := f.svc.SignIn(ctx, "siti", sitiPassword, "10.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.svc.SetPassword(ctx, auth.SystemActor, u.ID, "password-baru-siti"); err != nil {
		t.Fatal(err)
	}
	if token, err := f.svc.StartSession(ctx, u, laptop); !errors.Is(err, auth.ErrBadCredentials) || token != "" {
		t.Fatalf("StartSession with the old password = %q, %v", token, err)
	}
}

func TestSignOutAndEndSessions(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	admin := f.user(t, "kepala.tu", auth.Admin, "kunci-gudang-sekolah")
	asAdmin := auth.UserActor(admin, "10.0.0.10")
	siti := f.user(t, "siti", auth.Finance, sitiPassword)
	asSiti := auth.UserActor(siti, "10.0.0.11")
	budi := f.user(t, "budi", auth.Finance, "nasi-goreng-pedas")

	a := f.signIn(t, "siti", sitiPassword)
	f.advance(time.Minute)
	b := f.signIn(t, "siti", sitiPassword)
	f.advance(time.Minute)
	c := f.signIn(t, "siti", sitiPassword)
	budiToken := f.signIn(t, "budi", "nasi-goreng-pedas")

	// Signing out ends that session only.
	if err := f.svc.SignOut(ctx, asSiti, a); err != nil {
		t.Fatal(err)
	}
	if f.live(t, a) || !f.live(t, b) || !f.live(t, c) {
		t.Fatal("sign-out ended the wrong sessions")
	}
	if err := f.svc.SignOut(ctx, asSiti, a); err != nil {
		t.Errorf("signing out twice: %v", err)
	}

	// Listing: newest activity first; a person sees their own, an admin anyone's.
	list, err := f.svc.Sessions(ctx, asSiti, siti.ID)
	if err != nil || len(list) != 2 || !list[0].CreatedAt.After(list[1].CreatedAt) {
		t.Fatalf("own sessions = %+v, %v", list, err)
	}
	if _, err := f.svc.Sessions(ctx, asAdmin, siti.ID); err != nil {
		t.Errorf("admin listing siti's sessions: %v", err)
	}
	if _, err := f.svc.Sessions(ctx, auth.UserActor(budi, ""), siti.ID); !errors.Is(err, auth.ErrForbidden) {
		t.Errorf("budi listing siti's sessions: err = %v", err)
	}

	// Ending one: an admin may, the owner may, nobody else.
	if err := f.svc.EndSession(ctx, auth.UserActor(budi, ""), siti.ID, list[0].ID); !errors.Is(err, auth.ErrForbidden) {
		t.Errorf("budi ending siti's session: err = %v", err)
	}
	if err := f.svc.EndSession(ctx, asAdmin, budi.ID, list[0].ID); !errors.Is(err, auth.ErrNoSession) {
		t.Errorf("ending siti's session as if budi's: err = %v", err)
	}
	if err := f.svc.EndSession(ctx, asAdmin, siti.ID, list[0].ID); err != nil {
		t.Fatal(err)
	}
	if f.live(t, c) || !f.live(t, b) {
		t.Error("the admin ended the wrong session")
	}
	if err := f.svc.EndSession(ctx, asSiti, siti.ID, list[0].ID); !errors.Is(err, auth.ErrNoSession) {
		t.Errorf("ending an ended session: err = %v", err)
	}

	// Sign out everywhere.
	d := f.signIn(t, "siti", sitiPassword)
	if n, err := f.svc.EndSessions(ctx, asSiti, siti.ID); err != nil || n != 2 {
		t.Fatalf("EndSessions = %d, %v; want 2", n, err)
	}
	if f.live(t, b) || f.live(t, d) || !f.live(t, budiToken) {
		t.Error("sign out everywhere ended the wrong sessions")
	}
	if _, err := f.svc.EndSessions(ctx, auth.UserActor(budi, ""), admin.ID); !errors.Is(err, auth.ErrForbidden) {
		t.Errorf("budi signing the admin out everywhere: err = %v", err)
	}

	var got []string
	for _, e := range f.audit(t, store.AuditFilter{}) {
		if strings.HasPrefix(e.Action, "session.") || e.Action == auth.ActionSignOut {
			got = append(got, e.Actor+":"+e.Action+":"+e.Target+":"+e.Outcome)
		}
	}
	want := []string{
		"siti:auth.signout:siti:ok", "siti:auth.signout:siti:ok",
		"budi:session.end:siti:denied", "kepala.tu:session.end:budi:failed", "kepala.tu:session.end:siti:ok",
		"siti:session.end:siti:failed", "siti:session.end_all:siti:ok", "budi:session.end_all:kepala.tu:denied",
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("session audit trail:\n got %v\nwant %v", got, want)
	}
}

func TestPruneSessions(t *testing.T) {
	f := newFixture(t)
	f.svc.SessionIdle, f.svc.SessionLifetime = time.Hour, 3*time.Hour
	f.user(t, "siti", auth.Finance, sitiPassword)
	idle := f.signIn(t, "siti", sitiPassword)
	old := f.signIn(t, "siti", sitiPassword)
	for range 3 {
		f.advance(50 * time.Minute)
		f.live(t, old) // kept active...
	}
	f.advance(40 * time.Minute) // ...but now past its lifetime
	fresh := f.signIn(t, "siti", sitiPassword)
	if n, err := f.svc.PruneSessions(t.Context()); err != nil || n != 2 {
		t.Fatalf("PruneSessions = %d, %v; want 2", n, err)
	}
	if !f.live(t, fresh) || f.live(t, idle) || f.live(t, old) {
		t.Error("pruned the wrong sessions")
	}
}

// Guessing the current password on the change form counts like failed sign-ins.
func TestChangePasswordThrottled(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	siti := f.user(t, "siti", auth.Finance, sitiPassword)
	asSiti := auth.UserActor(siti, "10.0.0.11")
	for i := range 5 {
		f.advance(time.Second)
		if _, err := f.svc.ChangePassword(ctx, asSiti, "guess-number-"+string(rune('a'+i)), "password-baru-siti", laptop); !errors.Is(err, auth.ErrBadCredentials) {
			t.Fatalf("guess %d: err = %v", i+1, err)
		}
	}
	_, err := f.svc.ChangePassword(ctx, asSiti, sitiPassword, "password-baru-siti", laptop)
	var locked *auth.LockedError
	if !errors.As(err, &locked) {
		t.Fatalf("right password after five guesses: err = %v, want locked", err)
	}
	if _, err := f.svc.SignIn(ctx, "siti", sitiPassword, "10.0.0.11"); !errors.As(err, &locked) {
		t.Errorf("sign-in from the guessing address: err = %v, want locked", err)
	}
	if u, _ := f.db.UserByID(ctx, siti.ID); !auth.CheckPassword(u.PasswordHash, sitiPassword) {
		t.Error("the password changed")
	}
}
