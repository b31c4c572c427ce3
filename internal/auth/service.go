package auth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

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

// LockedError means too many recent failures; no password is checked until Until.
type LockedError struct {
	Until     time.Time
	ByAddress bool // the address, not the account, is locked
}

// Error says what is locked and until when (UTC); pages show their own text.
func (e *LockedError) Error() string {
	what := "account"
	if e.ByAddress {
		what = "address"
	}
	return fmt.Sprintf("auth: %s locked until %s", what, e.Until.UTC().Format(time.RFC3339))
}

// Policy defaults, applied when the Service's fields are zero.
const (
	DefaultMaxUserFailures = 5
	DefaultMaxAddrFailures = 20
	DefaultFailureWindow   = 15 * time.Minute
	DefaultLockDuration    = 15 * time.Minute
)

// Audit actions and outcomes written by this package.
const (
	ActionSignIn        = "auth.signin"
	ActionStaffCreate   = "staff.create"
	ActionStaffPassword = "staff.password"
	ActionStaffRole     = "staff.role"
	ActionStaffDisable  = "staff.disable"
	ActionStaffEnable   = "staff.enable"

	OutcomeOK       = "ok"
	OutcomeFailed   = "failed"
	OutcomeLocked   = "locked"
	OutcomeDisabled = "disabled"
	OutcomeDenied   = "denied"
)

// Service signs staff in and makes the audited changes to their accounts.
type Service struct {
	Store *store.DB
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger receives failures to write the audit log; nil means slog.Default().
	Logger *slog.Logger

	// MaxUserFailures failures for one username within FailureWindow lock that
	// username for LockDuration; MaxAddrFailures do the same for one address.
	MaxUserFailures int
	MaxAddrFailures int
	FailureWindow   time.Duration
	LockDuration    time.Duration
}

// NewService returns a Service over db with the default policy.
func NewService(db *store.DB) *Service { return &Service{Store: db} }

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

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

// SignIn checks username and password from addr and returns the user. Errors:
// ErrBadCredentials, ErrDisabled, or *LockedError (checked before the password,
// so a locked account says so and until when). Every attempt is audited.
func (s *Service) SignIn(ctx context.Context, username, password, addr string) (store.User, error) {
	now := s.now()
	typed := truncate(username, maxUsernameInAudit)
	name := store.NormalizeUsername(username)
	audit := store.AuditEntry{At: now, Actor: typed, Action: ActionSignIn, Target: truncate(name, maxUsernameInAudit), IP: addr}

	if lock, err := s.lockFor(ctx, name, addr, now); err != nil {
		return store.User{}, err
	} else if lock != nil {
		// Attempts while locked are audited but not counted, so the lock ends
		// when the person was told it would.
		audit.Outcome, audit.Detail = OutcomeLocked, lockDetail(lock)
		s.audit(ctx, audit)
		return store.User{}, lock
	}

	u, err := s.Store.UserByUsername(ctx, name)
	known := err == nil
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return store.User{}, fmt.Errorf("auth: sign in: %w", err)
	}
	if !known || name == "" {
		burnCheck(password)
		return store.User{}, s.failed(ctx, audit, name, addr, now, "unknown user")
	}
	audit.ActorRole = u.Role
	if !CheckPassword(u.PasswordHash, password) {
		return store.User{}, s.failed(ctx, audit, name, addr, now, "wrong password")
	}
	if u.Disabled {
		// Said only after the right password, so it reveals nothing to a guesser.
		if err := s.Store.RecordSignIn(ctx, name, addr, false, now); err != nil {
			return store.User{}, fmt.Errorf("auth: sign in: %w", err)
		}
		audit.Outcome = OutcomeDisabled
		s.audit(ctx, audit)
		return store.User{}, ErrDisabled
	}
	if err := s.Store.RecordSignIn(ctx, name, addr, true, now); err != nil {
		return store.User{}, fmt.Errorf("auth: sign in: %w", err)
	}
	audit.Outcome = OutcomeOK
	s.audit(ctx, audit)
	return u, nil
}

// failed records a failed attempt and answers ErrBadCredentials, or the
// *LockedError this failure has just triggered, so the person learns of the
// lock at once rather than on the next try.
func (s *Service) failed(ctx context.Context, audit store.AuditEntry, name, addr string, now time.Time, detail string) error {
	if err := s.Store.RecordSignIn(ctx, name, addr, false, now); err != nil {
		return fmt.Errorf("auth: sign in: %w", err)
	}
	audit.Outcome, audit.Detail = OutcomeFailed, detail
	lock, err := s.lockFor(ctx, name, addr, now)
	if err != nil {
		return err
	}
	if lock != nil {
		audit.Detail += "; " + lockDetail(lock)
	}
	s.audit(ctx, audit)
	if lock != nil {
		return lock
	}
	return ErrBadCredentials
}

// lockFor returns the lock in force for username or addr at now, or nil.
//
// A lock starts at the failure that brings the count within FailureWindow to
// the limit and lasts LockDuration from it. Attempts made while locked are not
// recorded as failures, so the newest failure of a locked name or address is
// the one that locked it: the lock holds when that failure is younger than
// LockDuration and the window ending at it holds enough failures. (Counting
// the window ending now instead would end a lock early as its first failures
// age out.)
func (s *Service) lockFor(ctx context.Context, name, addr string, now time.Time) (*LockedError, error) {
	window := orDefault(s.FailureWindow, DefaultFailureWindow)
	lockFor := orDefault(s.LockDuration, DefaultLockDuration)
	_, _, lastUser, lastAddr, err := s.Store.FailuresSince(ctx, name, addr, now.Add(-lockFor))
	if err != nil {
		return nil, fmt.Errorf("auth: sign-in throttle: %w", err)
	}

	var lock *LockedError
	if !lastUser.IsZero() {
		byUser, _, _, _, err := s.Store.FailuresSince(ctx, name, "", lastUser.Add(-window))
		if err != nil {
			return nil, fmt.Errorf("auth: sign-in throttle: %w", err)
		}
		if byUser >= orDefault(s.MaxUserFailures, DefaultMaxUserFailures) {
			lock = &LockedError{Until: lastUser.Add(lockFor)}
		}
	}
	if addr != "" && !lastAddr.IsZero() {
		_, byAddr, _, _, err := s.Store.FailuresSince(ctx, "", addr, lastAddr.Add(-window))
		if err != nil {
			return nil, fmt.Errorf("auth: sign-in throttle: %w", err)
		}
		until := lastAddr.Add(lockFor)
		if byAddr >= orDefault(s.MaxAddrFailures, DefaultMaxAddrFailures) && (lock == nil || until.After(lock.Until)) {
			lock = &LockedError{Until: until, ByAddress: true}
		}
	}
	if lock != nil && !lock.Until.After(now) {
		return nil, nil
	}
	return lock, nil
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
	what := "account"
	if l.ByAddress {
		what = "address"
	}
	return what + " locked until " + l.Until.UTC().Format(time.RFC3339)
}

// audit appends e; a failure to write the log is logged, not returned, so a
// full disk does not turn a good sign-in into an error page.
func (s *Service) audit(ctx context.Context, e store.AuditEntry) {
	if err := s.Store.AppendAudit(ctx, e); err != nil {
		s.logger().ErrorContext(ctx, "audit append failed", "action", e.Action, "target", e.Target, "err", err)
	}
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}
