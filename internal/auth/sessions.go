package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/sekolah/portal/internal/audit"
	"github.com/sekolah/portal/internal/store"
)

// ErrNoSession means a token names no live session: never issued, ended, or expired.
var ErrNoSession = errors.New("auth: no such session")

// Session policy defaults, applied when the Service's fields are zero.
const (
	// DefaultSessionIdle ends a session after this long without a request.
	DefaultSessionIdle = 8 * time.Hour
	// DefaultSessionLifetime ends a session however active it is: staff sign in again each week.
	DefaultSessionLifetime = 7 * 24 * time.Hour
	// SessionTouchInterval is how stale a session's last-seen time may get before a
	// request writes it again: idle expiry is accurate to this, and a busy person costs
	// one write a minute, not one per request.
	SessionTouchInterval = time.Minute
)

// The codes of the sessions' audit entries (their actions are in audit.go).
const (
	ActionSignOut        = "auth.signout"
	ActionSessionEnd     = "session.end"
	ActionSessionsEndAll = "session.end_all"
)

// Device is where a session is used from: the client address and a short description of
// the browser, shown in the sessions list.
type Device struct {
	Addr      string
	UserAgent string
}

// maxDeviceText bounds what a client's headers can write into a session row.
const maxDeviceText = 100

// tokenBytes is the size of a session token: 256 bits from crypto/rand.
const tokenBytes = 32

// hashToken is what the database keeps of a token: a copy of the table signs nobody in,
// and a token, being random, needs no salt or slow hash.
func hashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// StartSession begins a session for u, whose password SignIn has just checked, and
// returns the token the cookie carries. The session is stored only while u still has
// that password and is enabled, so a reset or disable racing the sign-in wins; then the
// answer is ErrBadCredentials and the person signs in again.
func (s *Service) StartSession(ctx context.Context, u store.User, d Device) (string, error) {
	b := make([]byte, tokenBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("auth: session token: %w", err)
	}
	token := base64.RawURLEncoding.EncodeToString(b)
	now := s.now()
	sess := store.Session{
		UserID: u.ID, CreatedAt: now, LastSeenAt: now,
		Addr: truncate(d.Addr, maxDeviceText), UserAgent: truncate(d.UserAgent, maxDeviceText),
	}
	err := s.Store.CreateSession(ctx, &sess, hashToken(token), u.PasswordHash)
	if errors.Is(err, store.ErrNotFound) {
		return "", ErrBadCredentials
	}
	if err != nil {
		return "", fmt.Errorf("auth: start session: %w", err)
	}
	return token, nil
}

// Session returns the live session token names and its user, and records activity from
// d at most once every SessionTouchInterval. A session idle longer than SessionIdle, older
// than SessionLifetime, or of a disabled account is deleted and gives ErrNoSession, as
// does an unknown token.
func (s *Service) Session(ctx context.Context, token string, d Device) (store.Session, store.User, error) {
	if len(token) != base64.RawURLEncoding.EncodedLen(tokenBytes) {
		return store.Session{}, store.User{}, ErrNoSession
	}
	sess, u, err := s.Store.SessionByToken(ctx, hashToken(token))
	if errors.Is(err, store.ErrNotFound) {
		return store.Session{}, store.User{}, ErrNoSession
	}
	if err != nil {
		return store.Session{}, store.User{}, fmt.Errorf("auth: session: %w", err)
	}
	now := s.now()
	if !s.live(sess, now) || u.Disabled {
		if err := s.Store.DeleteSession(ctx, sess.UserID, sess.ID); err != nil && !errors.Is(err, store.ErrNotFound) {
			s.logger().WarnContext(ctx, "delete expired session", "err", err)
		}
		return store.Session{}, store.User{}, ErrNoSession
	}
	if now.Sub(sess.LastSeenAt) >= SessionTouchInterval {
		addr := truncate(d.Addr, maxDeviceText)
		// A failed write only makes the idle clock a minute less exact: not worth an error page.
		if err := s.Store.TouchSession(ctx, sess.ID, now, addr); err != nil {
			s.logger().WarnContext(ctx, "record session activity", "err", err)
		} else {
			sess.LastSeenAt, sess.Addr = now, addr
		}
	}
	return sess, u, nil
}

func (s *Service) live(sess store.Session, now time.Time) bool {
	return now.Sub(sess.LastSeenAt) <= orDefault(s.SessionIdle, DefaultSessionIdle) &&
		now.Sub(sess.CreatedAt) <= orDefault(s.SessionLifetime, DefaultSessionLifetime)
}

// SignOut ends the session token names, signed in as actor, and audits it. Signing out
// of a session that has already ended is not an error.
func (s *Service) SignOut(ctx context.Context, actor Actor, token string) error {
	_, err := s.Store.DeleteSessionByToken(ctx, hashToken(token))
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("auth: sign out: %w", err)
	}
	e := s.staffEntry(actor, auditSignOut, actor.Username)
	e.Outcome = audit.OK
	s.audit(ctx, e)
	return nil
}

// Sessions lists the live sessions of userID, most recently active first. An admin
// (ManageStaff) may list anyone's; everyone may list their own.
func (s *Service) Sessions(ctx context.Context, actor Actor, userID string) ([]store.Session, error) {
	if _, err := s.userForChange(ctx, actor, userID, true); err != nil {
		return nil, err
	}
	now := s.now()
	list, err := s.Store.UserSessions(ctx, userID,
		now.Add(-orDefault(s.SessionIdle, DefaultSessionIdle)), now.Add(-orDefault(s.SessionLifetime, DefaultSessionLifetime)))
	if err != nil {
		return nil, fmt.Errorf("auth: sessions: %w", err)
	}
	return list, nil
}

// EndSession ends one session of userID and audits it: an admin may end anyone's, a
// person their own. ErrNoSession when userID has no such session (already ended).
func (s *Service) EndSession(ctx context.Context, actor Actor, userID, sessionID string) error {
	u, err := s.userForChange(ctx, actor, userID, true)
	entry := s.staffEntry(actor, auditSessionEnd, u.Username)
	entry.Detail = "session " + sessionID
	if err == nil {
		err = s.Store.DeleteSession(ctx, userID, sessionID)
		if errors.Is(err, store.ErrNotFound) {
			err = ErrNoSession
		} else if err != nil {
			err = fmt.Errorf("auth: end session: %w", err)
		}
	}
	s.auditResult(ctx, entry, err)
	return err
}

// EndSessions ends every session of userID ("sign out everywhere") and audits it with
// how many ended: an admin may do it for anyone, a person for themself.
func (s *Service) EndSessions(ctx context.Context, actor Actor, userID string) (int64, error) {
	u, err := s.userForChange(ctx, actor, userID, true)
	entry := s.staffEntry(actor, auditSessionsEndAll, u.Username)
	var n int64
	if err == nil {
		if n, err = s.Store.DeleteUserSessions(ctx, userID); err != nil {
			err = fmt.Errorf("auth: end sessions: %w", err)
		}
	}
	if err == nil {
		entry.Detail = sessionsEnded(n)
	}
	s.auditResult(ctx, entry, err)
	return n, err
}

// PruneSessions deletes sessions that can no longer be used (idle or too old); call it
// now and then (say hourly). It returns how many were deleted.
func (s *Service) PruneSessions(ctx context.Context) (int64, error) {
	now := s.now()
	n, err := s.Store.PruneSessions(ctx,
		now.Add(-orDefault(s.SessionIdle, DefaultSessionIdle)), now.Add(-orDefault(s.SessionLifetime, DefaultSessionLifetime)))
	if err != nil {
		return 0, fmt.Errorf("auth: %w", err)
	}
	return n, nil
}

// sessionsEnded is the audit detail of a change that signed a person out everywhere.
func sessionsEnded(n int64) string {
	if n == 1 {
		return "1 session ended"
	}
	return strconv.FormatInt(n, 10) + " sessions ended"
}
