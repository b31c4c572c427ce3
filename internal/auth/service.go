package auth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/sekolah/portal/internal/audit"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/store"
)

// Sign-in errors.
var (
	// ErrBadCredentials means an unknown username or a wrong password; the two
	// are deliberately indistinguishable.
	ErrBadCredentials = errors.New("auth: bad credentials")
	// ErrDisabled means the password was right but the account is disabled.
	ErrDisabled = errors.New("auth: account disabled")
)

// LockedError means too many recent failures; no password is checked until Until. A lock
// is per address (the account from it, or the address for every account), or, once an
// account has had too many failures from everywhere, the account for every device but
// those it was signed in to from before (a known device is never locked out by
// failures made elsewhere).
type LockedError struct {
	Until     time.Time
	ByAddress bool // the address itself is locked (for every account), not just this account from it
	// ByUsername: the account is locked for devices it was not signed in to from before.
	ByUsername bool
}

// Error says what is locked and until when (UTC); pages show their own text.
func (e *LockedError) Error() string { return "auth: " + lockDetail(e) }

// Policy defaults, applied when the Service's fields are zero.
const (
	DefaultMaxPairFailures     = 5
	DefaultMaxAddrFailures     = 20
	DefaultMaxUsernameFailures = 10
	DefaultDeviceTrust         = 180 * 24 * time.Hour
	DefaultFailureWindow       = 15 * time.Minute
	DefaultLockDuration        = 15 * time.Minute
	DefaultSlowAfter           = 3
	DefaultBaseDelay           = 250 * time.Millisecond
	DefaultMaxDelay            = 3 * time.Second
)

// The codes of the audit entries this package writes (their actions are in audit.go) and
// the outcomes it records.
const (
	ActionSignIn        = "auth.signin"
	ActionStaffCreate   = "staff.create"
	ActionStaffPassword = "staff.password"
	ActionStaffRole     = "staff.role"
	ActionStaffDisable  = "staff.disable"
	ActionStaffEnable   = "staff.enable"

	OutcomeOK       = string(audit.OK)
	OutcomeFailed   = string(audit.Failed)
	OutcomeLocked   = string(audit.Locked)
	OutcomeDisabled = string(audit.Disabled)
	OutcomeDenied   = string(audit.Denied)
)

// Service signs staff in and makes the audited changes to their accounts.
type Service struct {
	Store *store.DB
	// Clock is the portal's clock (internal/app's); the zero Clock refuses to be read.
	Clock clock.Clock
	// Logger receives failures to write the audit log; nil means slog.Default().
	Logger *slog.Logger

	// MaxPairFailures failures for one username from one address within FailureWindow
	// lock that username at that address for LockDuration; MaxAddrFailures for any
	// usernames from one address lock the address.
	MaxPairFailures int
	MaxAddrFailures int
	FailureWindow   time.Duration
	LockDuration    time.Duration
	// MaxUsernameFailures failures for one username from anywhere within FailureWindow
	// lock it for LockDuration on every device but a known one (Attempt.Device): many
	// addresses guessing one password are capped, and the person goes on signing in from
	// the devices they used before.
	MaxUsernameFailures int
	// DeviceTrust is how long after a sign-in a device counts as known (DefaultDeviceTrust).
	DeviceTrust time.Duration

	// SessionIdle ends a session after this long without a request (PORTAL_SESSION_IDLE);
	// SessionLifetime ends it however active it is.
	SessionIdle     time.Duration
	SessionLifetime time.Duration

	// A username with SlowAfter or more failures within FailureWindow (from anywhere) is
	// slowed down instead of locked: each attempt at it waits BaseDelay, doubled for every
	// failure beyond SlowAfter, at most MaxDelay, before its password is checked.
	SlowAfter int
	BaseDelay time.Duration
	MaxDelay  time.Duration
	// Sleep waits d or until ctx ends; nil means a real timer. Tests record instead.
	Sleep func(ctx context.Context, d time.Duration) error
}

// NewService returns a Service over db reading time from clk, with the default policy.
func NewService(db *store.DB, clk clock.Clock) *Service { return &Service{Store: db, Clock: clk} }

func (s *Service) now() time.Time { return s.Clock.Now() }

func (s *Service) logger() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.Default()
}

func orDefault[T int | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// maxUsernameInAudit bounds what a stranger can write into the audit log
// through the username field.
const maxUsernameInAudit = 64

// Attempt is one sign-in: what was typed, from where, and the device's proof that it
// signed in before (its device cookie, verified by the caller).
type Attempt struct {
	Username, Password, Addr string
	// Device is the account this device was signed in to before and when, from its
	// signed device cookie; zero when it has none.
	Device KnownDevice
}

// KnownDevice is a device's proof of an earlier sign-in: to which account, and when.
type KnownDevice struct {
	Username string
	At       time.Time
}

// knows reports whether d is a device username was signed in to from, recently enough
// (DeviceTrust) to be spared the account-wide lock.
func (s *Service) knows(d KnownDevice, username string, now time.Time) bool {
	return d.Username != "" && store.NormalizeUsername(d.Username) == username && !d.At.After(now) &&
		now.Sub(d.At) <= orDefault(s.DeviceTrust, DefaultDeviceTrust)
}

// SignIn checks username and password from addr, from a device not known to have signed
// in before; see SignInAttempt.
func (s *Service) SignIn(ctx context.Context, username, password, addr string) (store.User, error) {
	return s.SignInAttempt(ctx, Attempt{Username: username, Password: password, Addr: addr})
}

// SignInAttempt checks a sign-in and returns the user. Errors:
// ErrBadCredentials, ErrDisabled, or *LockedError (checked before the password,
// so a locked account says so and until when), or ctx's error when the caller gives up
// while the attempt is slowed down (then nothing was checked or counted). Every attempt
// that gets as far as the password is audited.
//
// Failures lock a username from the address they came from (and an address that fails for
// many usernames entirely). From everywhere, a username with failures is first slowed
// down, then, at MaxUsernameFailures, locked for every device but those it was signed in
// to from before (a.Device), which are neither slowed nor locked by failures made
// elsewhere: a stranger guessing from many addresses is capped, and cannot lock the
// person out of their own devices. The wait holds nothing: no transaction, no lock, no
// queue a real person's attempt would stand in.
func (s *Service) SignInAttempt(ctx context.Context, a Attempt) (store.User, error) {
	// The limits count an IPv6 address by its /64 (one subscriber's, free to change); the
	// audit log keeps the address itself.
	username, password, addr := a.Username, a.Password, AddressGroup(a.Addr)
	now := s.now()
	typed := truncate(username, maxUsernameInAudit)
	name := store.NormalizeUsername(username)
	entry := auditSignIn.With()
	entry.At, entry.Actor, entry.Target = now, audit.Actor{Username: typed, IP: a.Addr}, truncate(name, maxUsernameInAudit)
	known := s.knows(a.Device, name, now)
	if known {
		entry.Detail = "known device"
	}

	if lock, err := s.lockFor(ctx, name, addr, now, known); err != nil {
		return store.User{}, err
	} else if lock != nil {
		// Attempts while locked are audited but not counted, so the lock ends
		// when the person was told it would.
		entry.Outcome, entry.Detail = audit.Locked, lockDetail(lock)
		s.audit(ctx, entry)
		return store.User{}, lock
	}

	// Slow down before the password is checked, not after: a guesser who stops waiting
	// learns nothing and has spent no attempt.
	// A known device is not slowed down by failures made elsewhere either.
	var delay time.Duration
	if !known {
		var err error
		if delay, err = s.delayFor(ctx, name, now); err != nil {
			return store.User{}, err
		}
	}
	if delay > 0 {
		if err := s.sleep(ctx, delay); err != nil {
			return store.User{}, err
		}
		entry.Detail = "slowed down " + delay.String()
	}

	u, err := s.Store.UserByUsername(ctx, name)
	exists := err == nil
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return store.User{}, fmt.Errorf("auth: sign in: %w", err)
	}
	if !exists || name == "" {
		burnCheck(password)
		return store.User{}, s.failed(ctx, entry, name, addr, now, "unknown user", known)
	}
	entry.Actor.Role = u.Role
	if !CheckPassword(u.PasswordHash, password) {
		return store.User{}, s.failed(ctx, entry, name, addr, now, "wrong password", known)
	}
	if u.Disabled {
		// Said only after the right password, so it reveals nothing to a guesser.
		if err := s.Store.RecordSignIn(ctx, name, addr, false, now); err != nil {
			return store.User{}, fmt.Errorf("auth: sign in: %w", err)
		}
		entry.Outcome = audit.Disabled
		s.audit(ctx, entry)
		return store.User{}, ErrDisabled
	}
	if err := s.Store.RecordSignIn(ctx, name, addr, true, now); err != nil {
		return store.User{}, fmt.Errorf("auth: sign in: %w", err)
	}
	entry.Outcome = audit.OK
	s.audit(ctx, entry)
	return u, nil
}

// failed records a failed attempt and answers ErrBadCredentials, or the
// *LockedError this failure has just triggered, so the person learns of the
// lock at once rather than on the next try.
func (s *Service) failed(ctx context.Context, entry audit.Entry, name, addr string, now time.Time, detail string, known bool) error {
	if err := s.Store.RecordSignIn(ctx, name, addr, false, now); err != nil {
		return fmt.Errorf("auth: sign in: %w", err)
	}
	entry.Outcome, entry.Detail = audit.Failed, joinText(detail, entry.Detail)
	lock, err := s.lockFor(ctx, name, addr, now, known)
	if err != nil {
		return err
	}
	if lock != nil {
		entry.Detail += "; " + lockDetail(lock)
	}
	s.audit(ctx, entry)
	if lock != nil {
		return lock
	}
	return ErrBadCredentials
}

// lockFor returns the lock in force for username at addr, or for addr, or (unless the
// device is known) for username from everywhere, at now, or nil.
//
// A lock starts at the failure that brings the count within FailureWindow to the limit
// and lasts LockDuration from it. Attempts made while locked are not recorded as
// failures, so the newest failure of a locked pair or address is the one that locked
// it: the lock holds when that failure is younger than LockDuration and the window
// ending at it holds enough failures. (Counting the window ending now instead would end
// a lock early as its first failures age out.)
func (s *Service) lockFor(ctx context.Context, name, addr string, now time.Time, knownDevice bool) (*LockedError, error) {
	window := orDefault(s.FailureWindow, DefaultFailureWindow)
	lockFor := orDefault(s.LockDuration, DefaultLockDuration)
	var lock *LockedError
	check := func(scope store.FailureScope, limit int, byAddress bool) error {
		_, last, err := s.Store.FailuresSince(ctx, scope, name, addr, now.Add(-lockFor))
		if err != nil || last.IsZero() {
			return err
		}
		n, _, err := s.Store.FailuresSince(ctx, scope, name, addr, last.Add(-window))
		if err != nil {
			return err
		}
		if until := last.Add(lockFor); n >= limit && until.After(now) && (lock == nil || until.After(lock.Until)) {
			lock = &LockedError{Until: until, ByAddress: byAddress, ByUsername: scope == store.ScopeUsername}
		}
		return nil
	}
	if err := check(store.ScopePair, orDefault(s.MaxPairFailures, DefaultMaxPairFailures), false); err != nil {
		return nil, fmt.Errorf("auth: sign-in throttle: %w", err)
	}
	if addr != "" {
		if err := check(store.ScopeAddr, orDefault(s.MaxAddrFailures, DefaultMaxAddrFailures), true); err != nil {
			return nil, fmt.Errorf("auth: sign-in throttle: %w", err)
		}
	}
	if !knownDevice && name != "" {
		if err := check(store.ScopeUsername, orDefault(s.MaxUsernameFailures, DefaultMaxUsernameFailures), false); err != nil {
			return nil, fmt.Errorf("auth: sign-in throttle: %w", err)
		}
	}
	return lock, nil
}

// delayFor is how long an attempt at username waits at now: nothing until SlowAfter
// recent failures (from anywhere), then BaseDelay doubling with each further failure, at
// most MaxDelay. Bounded, so the real person is slowed down, never locked out.
func (s *Service) delayFor(ctx context.Context, name string, now time.Time) (time.Duration, error) {
	n, _, err := s.Store.FailuresSince(ctx, store.ScopeUsername, name, "", now.Add(-orDefault(s.FailureWindow, DefaultFailureWindow)))
	if err != nil {
		return 0, fmt.Errorf("auth: sign-in throttle: %w", err)
	}
	over := n - orDefault(s.SlowAfter, DefaultSlowAfter)
	if over < 0 {
		return 0, nil
	}
	maxDelay := orDefault(s.MaxDelay, DefaultMaxDelay)
	d := orDefault(s.BaseDelay, DefaultBaseDelay)
	for ; over > 0 && d < maxDelay; over-- {
		d *= 2
	}
	return min(d, maxDelay), nil
}

func (s *Service) sleep(ctx context.Context, d time.Duration) error {
	if s.Sleep != nil {
		return s.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// PruneSignIns deletes sign-in attempts too old to affect any lock; call it
// now and then (say hourly). It returns how many were deleted.
func (s *Service) PruneSignIns(ctx context.Context) (int64, error) {
	horizon := orDefault(s.FailureWindow, DefaultFailureWindow) + orDefault(s.LockDuration, DefaultLockDuration)
	n, err := s.Store.PruneSignIns(ctx, s.now().Add(-horizon))
	if err != nil {
		return 0, fmt.Errorf("auth: %w", err)
	}
	return n, nil
}

func lockDetail(l *LockedError) string {
	what := "account locked for this address"
	switch {
	case l.ByAddress:
		what = "address locked"
	case l.ByUsername:
		what = "account locked for unknown devices"
	}
	return what + " until " + l.Until.UTC().Format(time.RFC3339)
}

// joinText joins two details with "; ", skipping an empty one.
func joinText(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// audit appends e; a failure to write the log is logged, not returned, so a
// full disk does not turn a good sign-in into an error page.
func (s *Service) audit(ctx context.Context, e audit.Entry) {
	if err := (audit.Log{DB: s.Store, Clock: s.Clock}).Record(ctx, e); err != nil {
		s.logger().ErrorContext(ctx, "audit append failed", "action", e.Action.Code, "target", e.Target, "err", err)
	}
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}
