package auth_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/audit"
	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/store/storetest"
)

// fixture is a Service over a fresh SQLite file with a clock the test moves.
type fixture struct {
	svc   *auth.Service
	db    *store.DB
	clock time.Time
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{db: storetest.OpenTest(t), clock: time.Date(2025, 8, 17, 3, 0, 0, 0, time.UTC)}
	f.svc = auth.NewService(f.db, clock.New(func() time.Time { return f.clock }, time.UTC))
	// Sign-in slow-downs pass at once; the clock is the test's.
	f.svc.Sleep = func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
	return f
}

func (f *fixture) advance(d time.Duration) { f.clock = f.clock.Add(d) }

// user creates an account directly, as the system.
func (f *fixture) user(t *testing.T, name string, role auth.Role, password string) store.User {
	t.Helper()
	u, err := f.svc.CreateUser(t.Context(), auth.SystemActor, name, strings.ToUpper(name[:1])+name[1:], role, password)
	if err != nil {
		t.Fatalf("CreateUser(%s): %v", name, err)
	}
	return u
}

// audit returns all audit entries, oldest first.
func (f *fixture) audit(t *testing.T, filter store.AuditFilter) []store.AuditEntry {
	t.Helper()
	filter.Limit = store.MaxAuditLimit
	entries, _, err := f.db.ListAudit(t.Context(), filter)
	if err != nil {
		t.Fatal(err)
	}
	for i, j := 0, len(entries)-1; i < j; i, j = i+1, j-1 {
		entries[i], entries[j] = entries[j], entries[i]
	}
	// Every entry carries what its action says it does (the log's words need it).
	for _, e := range entries {
		if err := audit.Read(e).Check(); err != nil {
			t.Error(err)
		}
	}
	return entries
}

func outcomes(entries []store.AuditEntry) string {
	var s []string
	for _, e := range entries {
		s = append(s, e.Outcome)
	}
	return strings.Join(s, ",")
}

const sitiPassword = "teh-manis-hangat"

func TestSignIn(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	siti := f.user(t, "siti", auth.Finance, sitiPassword)
	budi := f.user(t, "budi", auth.Principal, "nasi-goreng-pedas")
	if err := f.svc.SetDisabled(ctx, auth.SystemActor, budi.ID, true); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name, user, pw string
		want           error
		outcome        string
	}{
		{"right password", "siti", sitiPassword, nil, auth.OutcomeOK},
		{"username ignores case", " SITI ", sitiPassword, nil, auth.OutcomeOK},
		{"wrong password", "siti", "teh-manis-dingin", auth.ErrBadCredentials, auth.OutcomeFailed},
		{"unknown user", "sitti", sitiPassword, auth.ErrBadCredentials, auth.OutcomeFailed},
		{"empty username", "", sitiPassword, auth.ErrBadCredentials, auth.OutcomeFailed},
		{"disabled, right password", "budi", "nasi-goreng-pedas", auth.ErrDisabled, auth.OutcomeDisabled},
		{"disabled, wrong password", "budi", "nasi-goreng-manis", auth.ErrBadCredentials, auth.OutcomeFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f.advance(time.Minute)
			u, err := f.svc.SignIn(ctx, tt.user, tt.pw, "10.1.2.3")
			if tt.want == nil {
				if err != nil || u.ID != siti.ID {
					t.Fatalf("SignIn = %+v, %v", u, err)
				}
			} else if !errors.Is(err, tt.want) || u.ID != "" {
				t.Fatalf("SignIn = %+v, %v; want %v", u, err, tt.want)
			}
			entries := f.audit(t, store.AuditFilter{Action: auth.ActionSignIn})
			last := entries[len(entries)-1]
			if last.Outcome != tt.outcome || last.Actor != tt.user || last.IP != "10.1.2.3" || !last.At.Equal(f.clock) {
				t.Errorf("audit entry = %+v, want outcome %s by %q", last, tt.outcome, tt.user)
			}
		})
	}

	// The password never reaches the audit log.
	for _, e := range f.audit(t, store.AuditFilter{}) {
		line := fmt.Sprintf("%+v", e)
		for _, pw := range []string{sitiPassword, "teh-manis-dingin", "nasi-goreng"} {
			if strings.Contains(line, pw) {
				t.Errorf("audit entry contains a password: %s", line)
			}
		}
	}
}

func TestSignInLocksUsernameFromOneAddress(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	siti := f.user(t, "siti", auth.Finance, sitiPassword)

	for i := 1; i <= 4; i++ {
		f.advance(time.Minute)
		if _, err := f.svc.SignIn(ctx, "siti", "wrong-password", "10.0.0.1"); !errors.Is(err, auth.ErrBadCredentials) {
			t.Fatalf("failure %d: err = %v", i, err)
		}
	}
	f.advance(time.Minute)
	fifth := f.clock
	_, err := f.svc.SignIn(ctx, "siti", "wrong-password", "10.0.0.1")
	var locked *auth.LockedError
	if !errors.As(err, &locked) || locked.ByAddress || !locked.Until.Equal(fifth.Add(15*time.Minute)) {
		t.Fatalf("fifth failure: err = %v, want siti locked at 10.0.0.1 until %v", err, fifth.Add(15*time.Minute))
	}

	// While locked even the right password is refused from that address, and trying
	// does not move the end of the lock.
	for range 3 {
		f.advance(4 * time.Minute)
		_, err = f.svc.SignIn(ctx, "siti", sitiPassword, "10.0.0.1")
		if !errors.As(err, &locked) || !locked.Until.Equal(fifth.Add(15*time.Minute)) {
			t.Fatalf("during lock: err = %v", err)
		}
	}
	// Another account from the same address is not affected.
	f.user(t, "budi", auth.Finance, "nasi-goreng-pedas")
	if _, err := f.svc.SignIn(ctx, "budi", "nasi-goreng-pedas", "10.0.0.1"); err != nil {
		t.Errorf("other account during lock: %v", err)
	}

	f.clock = fifth.Add(15 * time.Minute)
	if u, err := f.svc.SignIn(ctx, "siti", sitiPassword, "10.0.0.1"); err != nil || u.ID != siti.ID {
		t.Fatalf("after the lock ends: %+v, %v", u, err)
	}
	got := outcomes(f.audit(t, store.AuditFilter{Actor: "siti"}))
	if want := "failed,failed,failed,failed,failed,locked,locked,locked,ok"; got != want {
		t.Errorf("audit outcomes = %s, want %s", got, want)
	}
}

// An attacker elsewhere cannot lock a person out: failures from one address lock only
// that address for the account, and the person signs in from theirs.
func TestSignInFailuresElsewhereDoNotLockOut(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	admin := f.user(t, "admin", auth.Admin, "kunci-gudang-sekolah")
	for i := range 20 {
		f.advance(time.Second)
		_, err := f.svc.SignIn(ctx, "admin", fmt.Sprintf("guess-%02d-password", i), "203.0.113.66")
		if i >= 4 && !errors.As(err, new(*auth.LockedError)) {
			t.Fatalf("attempt %d from the attacker's address: err = %v, want locked", i+1, err)
		}
	}
	u, err := f.svc.SignIn(ctx, "admin", "kunci-gudang-sekolah", "198.51.100.10")
	if err != nil || u.ID != admin.ID {
		t.Fatalf("the admin from their own address after 20 failures elsewhere: %+v, %v", u, err)
	}
}

// An IPv6 guesser changing addresses within its /64 is one address to the limits; the
// audit log names each address.
func TestSignInIPv6CountsBySubnet(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	f.user(t, "siti", auth.Finance, sitiPassword)
	for i := range auth.DefaultMaxPairFailures {
		f.advance(time.Second)
		f.svc.SignIn(ctx, "siti", "wrong-password", fmt.Sprintf("2001:db8:5:6::%x", i+1))
	}
	var locked *auth.LockedError
	if _, err := f.svc.SignIn(ctx, "siti", sitiPassword, "2001:db8:5:6:ffff::1"); !errors.As(err, &locked) || locked.ByUsername {
		t.Fatalf("from the same /64: %v, want its lock", err)
	}
	if _, err := f.svc.SignIn(ctx, "siti", sitiPassword, "2001:db8:5:7::1"); err != nil {
		t.Fatalf("from another /64: %v", err)
	}
	if e := f.audit(t, store.AuditFilter{Actor: "siti"}); e[0].IP != "2001:db8:5:6::1" {
		t.Errorf("audit IP %q, want the address itself", e[0].IP)
	}
}

// Issue 30: 40 guesses at one account from 10 addresses (4 each, under every address's
// limit) were only slowed down. Now the account takes MaxUsernameFailures from
// everywhere, then is locked for every device it was not signed in to from before: the
// rest of the guesses are not even checked, the right password from a new device
// neither. The person's own device (its device cookie: a sign-in to this account not
// older than DeviceTrust) signs in, without waiting; a device of another account, or one
// too old, does not count; and a known device is still held to its address's limits.
func TestSignInUsernameCappedAcrossAddresses(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	var delays []time.Duration
	f.svc.Sleep = func(ctx context.Context, d time.Duration) error {
		delays = append(delays, d)
		return ctx.Err()
	}
	admin := f.user(t, "admin", auth.Admin, "kunci-gudang-sekolah")
	device := auth.KnownDevice{Username: "Admin", At: f.clock.Add(-30 * 24 * time.Hour)}
	checked := 0
	for i := range 40 {
		f.advance(time.Second)
		_, err := f.svc.SignIn(ctx, "admin", fmt.Sprintf("guess-%02d-password", i), fmt.Sprintf("192.0.2.%d", i%10))
		var locked *auth.LockedError
		switch {
		case errors.Is(err, auth.ErrBadCredentials):
			checked++
		case errors.As(err, &locked) && locked.ByUsername && !locked.ByAddress:
			if checked < auth.DefaultMaxUsernameFailures-1 {
				t.Fatalf("guess %d: locked after %d failures", i+1, checked)
			}
		default:
			t.Fatalf("guess %d: %v", i+1, err)
		}
	}
	if checked != auth.DefaultMaxUsernameFailures-1 {
		t.Fatalf("%d guesses checked and refused before the lock, want %d", checked, auth.DefaultMaxUsernameFailures-1)
	}
	if n := len(f.audit(t, store.AuditFilter{Actor: "admin", Outcome: auth.OutcomeLocked})); n != 40-auth.DefaultMaxUsernameFailures {
		t.Errorf("%d locked attempts audited, want %d", n, 40-auth.DefaultMaxUsernameFailures)
	}
	// The right password from a new device: locked too (it could be the 41st guess).
	var locked *auth.LockedError
	if _, err := f.svc.SignIn(ctx, "admin", "kunci-gudang-sekolah", "198.51.100.10"); !errors.As(err, &locked) || !locked.ByUsername {
		t.Fatalf("the right password from a new device: %v", err)
	}
	// Another account's device, or one too old, is a new device.
	for _, d := range []auth.KnownDevice{{Username: "budi", At: device.At}, {Username: "admin", At: f.clock.Add(-auth.DefaultDeviceTrust - time.Hour)},
		{Username: "admin", At: f.clock.Add(time.Hour)}} {
		if _, err := f.svc.SignInAttempt(ctx, auth.Attempt{Username: "admin", Password: "kunci-gudang-sekolah", Addr: "198.51.100.10", Device: d}); !errors.As(err, &locked) {
			t.Fatalf("device %+v: %v, want locked", d, err)
		}
	}
	// The admin's own device signs in at once, without waiting.
	delays = nil
	u, err := f.svc.SignInAttempt(ctx, auth.Attempt{Username: "admin", Password: "kunci-gudang-sekolah", Addr: "198.51.100.10", Device: device})
	if err != nil || u.ID != admin.ID || len(delays) != 0 {
		t.Fatalf("the admin's own device: %+v, %v, waited %v", u, err, delays)
	}
	if e := f.audit(t, store.AuditFilter{Actor: "admin", Outcome: auth.OutcomeOK}); len(e) != 1 || e[0].Detail != "known device" {
		t.Fatalf("audit of the known device's sign-in = %+v", e)
	}
	// A known device is still held to its address's limit.
	for i := range auth.DefaultMaxPairFailures {
		f.advance(time.Second)
		f.svc.SignInAttempt(ctx, auth.Attempt{Username: "admin", Password: fmt.Sprintf("typo-%d-password", i), Addr: "198.51.100.10", Device: device})
	}
	_, err = f.svc.SignInAttempt(ctx, auth.Attempt{Username: "admin", Password: "kunci-gudang-sekolah", Addr: "198.51.100.10", Device: device})
	if !errors.As(err, &locked) || locked.ByUsername {
		t.Fatalf("a known device after %d failures from its address: %v, want the address's lock", auth.DefaultMaxPairFailures, err)
	}
	// The lock ends on time.
	f.advance(auth.DefaultLockDuration)
	if _, err := f.svc.SignIn(ctx, "admin", "kunci-gudang-sekolah", "203.0.113.200"); err != nil {
		t.Fatalf("after the lock: %v", err)
	}
}

// Failures for a username slow every attempt at it down, more with each recent failure
// and never beyond a few seconds; a success starts over.
func TestSignInSlowsDownUsername(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	var delays []time.Duration
	f.svc.Sleep = func(ctx context.Context, d time.Duration) error {
		delays = append(delays, d)
		return nil
	}
	f.svc.MaxUsernameFailures = 1000 // the slow-down alone, never the account-wide lock
	f.user(t, "siti", auth.Finance, sitiPassword)
	for i := range 12 {
		f.advance(time.Second)
		f.svc.SignIn(ctx, "siti", "wrong-password", fmt.Sprintf("192.0.2.%d", i))
	}
	want := []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second,
		3 * time.Second, 3 * time.Second, 3 * time.Second, 3 * time.Second, 3 * time.Second}
	if !slices.Equal(delays, want) {
		t.Fatalf("delays = %v, want none for the first three failures, then %v", delays, want)
	}
	// The right password is slowed down too (it could be a guess), and then starts over.
	delays = nil
	f.advance(time.Second)
	if _, err := f.svc.SignIn(ctx, "siti", sitiPassword, "198.51.100.10"); err != nil {
		t.Fatal(err)
	}
	f.advance(time.Second)
	f.svc.SignIn(ctx, "siti", "wrong-password", "198.51.100.10")
	if !slices.Equal(delays, []time.Duration{3 * time.Second}) {
		t.Errorf("delays around a success = %v, want [3s] then none", delays)
	}
	// Other accounts are not slowed down.
	delays = nil
	f.user(t, "budi", auth.Finance, "nasi-goreng-pedas")
	if _, err := f.svc.SignIn(ctx, "budi", "nasi-goreng-pedas", "192.0.2.1"); err != nil || len(delays) != 0 {
		t.Errorf("budi: %v, delays %v", err, delays)
	}
	// Failures age out of the window.
	f.advance(16 * time.Minute)
	for range 3 {
		f.svc.SignIn(ctx, "siti", "wrong-password", "192.0.2.200")
	}
	if len(delays) != 0 {
		t.Errorf("delays after old failures aged out = %v", delays)
	}
	entries := f.audit(t, store.AuditFilter{Actor: "siti", Outcome: auth.OutcomeFailed})
	if d := entries[6].Detail; d != "wrong password; slowed down 2s" {
		t.Errorf("audit detail of a slowed attempt = %q", d)
	}
}

// A person who gives up while being slowed down has made no attempt: the password is
// not checked and nothing is counted.
func TestSignInSlowDownCancelled(t *testing.T) {
	f := newFixture(t)
	f.user(t, "siti", auth.Finance, sitiPassword)
	for i := range 5 {
		f.advance(time.Second)
		f.svc.SignIn(t.Context(), "siti", "wrong-password", fmt.Sprintf("192.0.2.%d", i))
	}
	ctx, cancel := context.WithCancel(t.Context())
	f.svc.Sleep = func(ctx context.Context, d time.Duration) error {
		cancel()
		return ctx.Err()
	}
	if _, err := f.svc.SignIn(ctx, "siti", sitiPassword, "192.0.2.99"); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled during the delay: err = %v", err)
	}
	if n, _, err := f.db.FailuresSince(t.Context(), store.ScopeUsername, "siti", "", f.clock.Add(-time.Hour)); err != nil || n != 5 {
		t.Errorf("failures after a cancelled attempt = %d, %v; want still 5", n, err)
	}
	// The real timer waits, and gives up with the request.
	f.svc.Sleep = nil
	ctx, cancel = context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := f.svc.SignIn(ctx, "siti", sitiPassword, "192.0.2.99"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("deadline during the delay: err = %v", err)
	}
	if waited := time.Since(start); waited > 5*time.Second {
		t.Errorf("waited %v after the request gave up", waited)
	}
}

func TestSignInLocksUnknownUsernameToo(t *testing.T) {
	// An unknown username locks like a real one, so the lock reveals nothing.
	f := newFixture(t)
	ctx := t.Context()
	var err error
	for range 5 {
		f.advance(time.Second)
		_, err = f.svc.SignIn(ctx, "ghost", "whatever-it-is", "10.0.0.1")
	}
	var locked *auth.LockedError
	if !errors.As(err, &locked) {
		t.Fatalf("fifth failure for an unknown user: err = %v", err)
	}
}

func TestSignInSuccessResetsCount(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	f.user(t, "siti", auth.Finance, sitiPassword)
	fail := func(n int) error {
		var err error
		for range n {
			f.advance(time.Second)
			_, err = f.svc.SignIn(ctx, "siti", "wrong-password", "10.0.0.1")
		}
		return err
	}
	if err := fail(4); !errors.Is(err, auth.ErrBadCredentials) {
		t.Fatal(err)
	}
	f.advance(time.Second)
	if _, err := f.svc.SignIn(ctx, "siti", sitiPassword, "10.0.0.1"); err != nil {
		t.Fatal(err)
	}
	if err := fail(4); !errors.Is(err, auth.ErrBadCredentials) {
		t.Errorf("4 failures after a success: err = %v, want ErrBadCredentials", err)
	}
	if err := fail(1); !errors.As(err, new(*auth.LockedError)) {
		t.Errorf("5 failures after a success: err = %v, want locked", err)
	}
}

func TestSignInFailuresAgeOut(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	f.user(t, "siti", auth.Finance, sitiPassword)
	for range 4 {
		f.advance(time.Minute)
		f.svc.SignIn(ctx, "siti", "wrong-password", "10.0.0.1")
	}
	f.advance(15 * time.Minute) // the first three are now outside the window
	if _, err := f.svc.SignIn(ctx, "siti", "wrong-password", "10.0.0.1"); !errors.Is(err, auth.ErrBadCredentials) {
		t.Errorf("failure after old ones aged out: err = %v", err)
	}
}

func TestSignInLocksAddress(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	f.user(t, "siti", auth.Finance, sitiPassword)
	var err error
	for i := range 20 {
		f.advance(time.Second)
		// A different username each time: only the address count grows.
		_, err = f.svc.SignIn(ctx, fmt.Sprintf("guess%02d", i), "password123", "203.0.113.9")
	}
	var locked *auth.LockedError
	if !errors.As(err, &locked) || !locked.ByAddress || !locked.Until.Equal(f.clock.Add(15*time.Minute)) {
		t.Fatalf("20th failure from one address: err = %v", err)
	}
	f.advance(time.Second)
	if _, err := f.svc.SignIn(ctx, "siti", sitiPassword, "203.0.113.9"); !errors.As(err, &locked) || !locked.ByAddress {
		t.Errorf("right password from the locked address: err = %v", err)
	}
	if _, err := f.svc.SignIn(ctx, "siti", sitiPassword, "198.51.100.1"); err != nil {
		t.Errorf("right password from another address: %v", err)
	}
	// Without an address there is nothing to lock by address.
	if _, err := f.svc.SignIn(ctx, "siti", sitiPassword, ""); err != nil {
		t.Errorf("sign-in without an address: %v", err)
	}
}

func TestSignInPolicyFields(t *testing.T) {
	f := newFixture(t)
	f.svc.MaxPairFailures, f.svc.LockDuration = 2, time.Hour
	ctx := t.Context()
	f.svc.SignIn(ctx, "siti", "wrong-password", "10.0.0.1")
	_, err := f.svc.SignIn(ctx, "siti", "wrong-password", "10.0.0.1")
	var locked *auth.LockedError
	if !errors.As(err, &locked) || !locked.Until.Equal(f.clock.Add(time.Hour)) {
		t.Errorf("custom policy: err = %v", err)
	}
	if !strings.Contains(locked.Error(), "account locked for this address until 2025-08-17T04:00:00Z") {
		t.Errorf("LockedError text = %q", locked.Error())
	}
}

func TestStaffChanges(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	admin := f.user(t, "kepala.tu", auth.Admin, "kunci-gudang-sekolah")
	asAdmin := auth.UserActor(admin, "10.0.0.10")

	siti, err := f.svc.CreateUser(ctx, asAdmin, "Siti", "Siti Aminah", auth.Finance, sitiPassword)
	if err != nil {
		t.Fatal(err)
	}
	if siti.Username != "siti" || siti.Role != "finance" || siti.DisplayName != "Siti Aminah" || siti.Disabled {
		t.Errorf("created %+v", siti)
	}
	asSiti := auth.UserActor(siti, "10.0.0.11")

	createTests := []struct {
		name     string
		actor    auth.Actor
		username string
		role     auth.Role
		pw       string
		want     error
	}{
		{"taken", asAdmin, "SITI", auth.Finance, sitiPassword, auth.ErrUsernameTaken},
		{"bad username", asAdmin, "s!", auth.Finance, sitiPassword, auth.ErrInvalidUsername},
		{"bad role", asAdmin, "rina", auth.Role("root"), sitiPassword, auth.ErrUnknownRole},
		{"short password", asAdmin, "rina", auth.Finance, "pendek", auth.ErrPasswordTooShort},
		{"password is username", asAdmin, "rina.wati.x", auth.Finance, "rina.wati.x", auth.ErrPasswordIsUsername},
		{"finance may not", asSiti, "rina", auth.Finance, sitiPassword, auth.ErrForbidden},
	}
	for _, tt := range createTests {
		if _, err := f.svc.CreateUser(ctx, tt.actor, tt.username, "", tt.role, tt.pw); !errors.Is(err, tt.want) {
			t.Errorf("CreateUser %s: err = %v, want %v", tt.name, err, tt.want)
		}
	}

	// Passwords: an admin sets anyone's, a person their own, nobody else's.
	if err := f.svc.SetPassword(ctx, asAdmin, siti.ID, "password-baru-siti"); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.SetPassword(ctx, asSiti, siti.ID, "password-lagi-siti"); err != nil {
		t.Errorf("own password: %v", err)
	}
	if err := f.svc.SetPassword(ctx, asSiti, admin.ID, "password-admin-baru"); !errors.Is(err, auth.ErrForbidden) {
		t.Errorf("finance setting admin's password: err = %v", err)
	}
	if err := f.svc.SetPassword(ctx, asAdmin, siti.ID, "short"); !errors.Is(err, auth.ErrPasswordTooShort) {
		t.Errorf("short password: err = %v", err)
	}
	unknownID := store.NewID()
	if err := f.svc.SetPassword(ctx, asAdmin, unknownID, "password-baru-siti"); !errors.Is(err, auth.ErrNoSuchUser) {
		t.Errorf("unknown user: err = %v", err)
	}
	if _, err := f.svc.ChangePassword(ctx, asSiti, "not-my-password", "password-ketiga", auth.Device{}); !errors.Is(err, auth.ErrBadCredentials) {
		t.Errorf("ChangePassword with a wrong current password: err = %v", err)
	}
	if _, err := f.svc.ChangePassword(ctx, asSiti, "password-lagi-siti", "password-ketiga", auth.Device{}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.SignIn(ctx, "siti", "password-ketiga", "10.0.0.11"); err != nil {
		t.Errorf("sign in with the changed password: %v", err)
	}
	if got, _ := f.db.UserByID(ctx, siti.ID); got.PasswordChangedAt.Before(siti.PasswordChangedAt) {
		t.Errorf("PasswordChangedAt went back")
	}

	// Roles and disabling.
	if err := f.svc.SetRole(ctx, asAdmin, siti.ID, auth.Principal); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.SetRole(ctx, asAdmin, siti.ID, auth.Role("root")); !errors.Is(err, auth.ErrUnknownRole) {
		t.Errorf("unknown role: err = %v", err)
	}
	if err := f.svc.SetRole(ctx, asSiti, siti.ID, auth.Admin); !errors.Is(err, auth.ErrForbidden) {
		t.Errorf("self-promotion: err = %v", err)
	}
	if err := f.svc.SetDisabled(ctx, asAdmin, siti.ID, true); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.db.UserByID(ctx, siti.ID); got.Role != "principal" || !got.Disabled {
		t.Errorf("after SetRole/SetDisabled: %+v", got)
	}
	if err := f.svc.SetDisabled(ctx, asAdmin, siti.ID, false); err != nil {
		t.Fatal(err)
	}

	var got []string
	for _, e := range f.audit(t, store.AuditFilter{Actor: "kepala.tu"}) {
		if e.IP != "10.0.0.10" || e.ActorRole != "admin" {
			t.Errorf("audit entry actor fields: %+v", e)
		}
		got = append(got, e.Action+":"+e.Target+":"+e.Outcome)
	}
	want := []string{
		"staff.create:siti:ok",
		"staff.create:siti:failed", "staff.create:s!:failed", "staff.create:rina:failed",
		"staff.create:rina:failed", "staff.create:rina.wati.x:failed",
		"staff.password:siti:ok", "staff.password:siti:failed", "staff.password:" + unknownID + ":failed",
		"staff.role:siti:ok", "staff.role:siti:failed",
		"staff.disable:siti:ok", "staff.enable:siti:ok",
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("admin's audit trail:\n got %v\nwant %v", got, want)
	}
	sitiTrail := outcomes(f.audit(t, store.AuditFilter{Actor: "siti", Action: auth.ActionStaffPassword}))
	if sitiTrail != "ok,denied,failed,ok" {
		t.Errorf("siti's password trail = %s", sitiTrail)
	}
	for _, e := range f.audit(t, store.AuditFilter{}) {
		for _, pw := range []string{sitiPassword, "password-baru-siti", "password-ketiga", "not-my-password"} {
			if strings.Contains(e.Detail, pw) {
				t.Errorf("audit detail %q contains a password", e.Detail)
			}
		}
	}
}

func TestLastAdminGuard(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	admin := f.user(t, "admin", auth.Admin, "kunci-gudang-sekolah")
	actor := auth.UserActor(admin, "")

	if err := f.svc.SetRole(ctx, actor, admin.ID, auth.Finance); !errors.Is(err, auth.ErrLastAdmin) {
		t.Errorf("demote the only admin: err = %v", err)
	}
	if err := f.svc.SetDisabled(ctx, actor, admin.ID, true); !errors.Is(err, auth.ErrLastAdmin) {
		t.Errorf("disable the only admin: err = %v", err)
	}
	if got, _ := f.db.UserByID(ctx, admin.ID); got.Role != "admin" || got.Disabled {
		t.Errorf("the refused change was written: %+v", got)
	}

	second := f.user(t, "wakil", auth.Admin, "kunci-gudang-kedua")
	if err := f.svc.SetDisabled(ctx, actor, second.ID, true); err != nil {
		t.Fatal(err)
	}
	// A disabled admin does not count.
	if err := f.svc.SetRole(ctx, actor, admin.ID, auth.Finance); !errors.Is(err, auth.ErrLastAdmin) {
		t.Errorf("demote the only enabled admin: err = %v", err)
	}
	if err := f.svc.SetDisabled(ctx, actor, second.ID, false); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.SetRole(ctx, actor, admin.ID, auth.Finance); err != nil {
		t.Errorf("demote one of two admins: %v", err)
	}
	entries := f.audit(t, store.AuditFilter{Action: auth.ActionStaffRole})
	if outcomes(entries) != "failed,failed,ok" || !strings.Contains(entries[0].Detail, "admin -> finance") {
		t.Errorf("role audit = %+v", entries)
	}
}

func TestEnsureBootstrapAdmin(t *testing.T) {
	t.Run("generated password", func(t *testing.T) {
		f := newFixture(t)
		ctx := t.Context()
		created, generated, err := f.svc.EnsureBootstrapAdmin(ctx, "")
		if err != nil || !created || len(generated) != auth.GeneratedPasswordLength {
			t.Fatalf("EnsureBootstrapAdmin = %v, %q, %v", created, generated, err)
		}
		u, err := f.svc.SignIn(ctx, "admin", generated, "127.0.0.1")
		if err != nil || u.Role != "admin" || u.DisplayName != "Administrator" {
			t.Fatalf("sign in as the bootstrap admin: %+v, %v", u, err)
		}
		created, generated, err = f.svc.EnsureBootstrapAdmin(ctx, "")
		if err != nil || created || generated != "" {
			t.Errorf("second EnsureBootstrapAdmin = %v, %q, %v", created, generated, err)
		}
		if n, _ := f.db.CountUsers(ctx); n != 1 {
			t.Errorf("CountUsers = %d", n)
		}
	})
	t.Run("given password", func(t *testing.T) {
		f := newFixture(t)
		ctx := t.Context()
		created, generated, err := f.svc.EnsureBootstrapAdmin(ctx, "dari-variabel-env")
		if err != nil || !created || generated != "" {
			t.Fatalf("EnsureBootstrapAdmin = %v, %q, %v", created, generated, err)
		}
		if _, err := f.svc.SignIn(ctx, "ADMIN", "dari-variabel-env", "127.0.0.1"); err != nil {
			t.Error(err)
		}
	})
	t.Run("weak given password", func(t *testing.T) {
		f := newFixture(t)
		if _, _, err := f.svc.EnsureBootstrapAdmin(t.Context(), "admin"); !errors.Is(err, auth.ErrPasswordTooShort) {
			t.Errorf("err = %v, want ErrPasswordTooShort", err)
		}
	})
	t.Run("an admin exists", func(t *testing.T) {
		f := newFixture(t)
		f.user(t, "kepala.tu", auth.Admin, sitiPassword)
		created, _, err := f.svc.EnsureBootstrapAdmin(t.Context(), "")
		if err != nil || created {
			t.Errorf("EnsureBootstrapAdmin with an admin present = %v, %v", created, err)
		}
	})
	// Issue 30: accounts added with `portal user add` before the first start are no
	// admin; the first start still makes one, with the password it is given.
	t.Run("only other roles exist", func(t *testing.T) {
		f := newFixture(t)
		f.user(t, "siti", auth.Finance, sitiPassword)
		created, generated, err := f.svc.EnsureBootstrapAdmin(t.Context(), "dari-variabel-env")
		if err != nil || !created || generated != "" {
			t.Fatalf("EnsureBootstrapAdmin beside a finance account = %v, %q, %v", created, generated, err)
		}
		if u, err := f.svc.SignIn(t.Context(), "admin", "dari-variabel-env", "127.0.0.1"); err != nil || u.Role != "admin" {
			t.Fatalf("sign in as admin: %+v %v", u, err)
		}
	})
	t.Run("admin is another role's name", func(t *testing.T) {
		f := newFixture(t)
		f.user(t, "admin", auth.Finance, sitiPassword)
		if _, _, err := f.svc.EnsureBootstrapAdmin(t.Context(), ""); !errors.Is(err, auth.ErrAdminNameTaken) {
			t.Fatalf("err = %v, want ErrAdminNameTaken", err)
		}
	})
}

func TestPruneSignInsKeepsLocks(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	for range 5 {
		f.advance(time.Minute)
		f.svc.SignIn(ctx, "siti", "wrong-password", "10.0.0.1")
	}
	f.advance(14 * time.Minute)
	if n, err := f.svc.PruneSignIns(ctx); err != nil || n != 0 {
		t.Errorf("PruneSignIns during the lock = %d, %v; want 0", n, err)
	}
	if _, err := f.svc.SignIn(ctx, "siti", "wrong-password", "10.0.0.1"); !errors.As(err, new(*auth.LockedError)) {
		t.Errorf("after pruning during the lock: err = %v, want still locked", err)
	}
	f.advance(time.Hour)
	if n, err := f.svc.PruneSignIns(ctx); err != nil || n != 5 {
		t.Errorf("PruneSignIns after the lock = %d, %v; want 5", n, err)
	}
}
