package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Session is one signed-in browser of a staff member.
type Session struct {
	ID         string // public handle, for listing and ending; not the cookie's token
	UserID     string
	CreatedAt  time.Time
	LastSeenAt time.Time
	Addr       string // the client address last seen
	UserAgent  string // a short description of the browser, e.g. "Firefox on Windows"
}

const sessionColumns = `id, user_id, created_at, last_seen_at, addr, user_agent`

func scanSession(row interface{ Scan(...any) error }, extra ...any) (Session, error) {
	var s Session
	err := row.Scan(append([]any{&s.ID, &s.UserID, &s.CreatedAt, &s.LastSeenAt, &s.Addr, &s.UserAgent}, extra...)...)
	s.CreatedAt, s.LastSeenAt = s.CreatedAt.UTC(), s.LastSeenAt.UTC()
	return s, err
}

// CreateSession stores s under tokenHash, filling ID, but only while its user can still
// sign in with the password that was just checked: the user's hash is still passwordHash
// and the account is enabled. Otherwise (a reset or a disable raced the sign-in) it
// returns ErrNotFound and stores nothing.
func (db *DB) CreateSession(ctx context.Context, s *Session, tokenHash, passwordHash string) error {
	if s.ID == "" {
		s.ID = NewID()
	}
	s.CreatedAt, s.LastSeenAt = Time(s.CreatedAt), Time(s.LastSeenAt)
	res, err := db.sql.ExecContext(ctx, `INSERT INTO sessions (id, token_hash, user_id, created_at, last_seen_at, addr, user_agent)
		SELECT $1, $2, id, $3, $4, $5, $6 FROM users WHERE id = $7 AND password_hash = $8 AND disabled = $9`,
		s.ID, tokenHash, s.CreatedAt, s.LastSeenAt, s.Addr, s.UserAgent, s.UserID, passwordHash, false)
	if err != nil {
		return fmt.Errorf("store: create session: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("store: create session: %w", err)
	} else if n == 0 {
		return fmt.Errorf("store: create session for %q: the account changed: %w", s.UserID, ErrNotFound)
	}
	return nil
}

// SessionByToken returns the session stored under tokenHash and its user, read in one
// query; ErrNotFound when there is none.
func (db *DB) SessionByToken(ctx context.Context, tokenHash string) (Session, User, error) {
	var u User
	s, err := scanSession(db.sql.QueryRowContext(ctx,
		`SELECT s.id, s.user_id, s.created_at, s.last_seen_at, s.addr, s.user_agent, u.id, u.username, u.display_name, u.role, u.disabled, u.lang, u.password_hash,
			u.created_at, u.updated_at, u.password_changed_at
		FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.token_hash = $1`, tokenHash),
		&u.ID, &u.Username, &u.DisplayName, &u.Role, &u.Disabled, &u.Lang, &u.PasswordHash,
		&u.CreatedAt, &u.UpdatedAt, &u.PasswordChangedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return Session{}, User{}, fmt.Errorf("store: session: %w", ErrNotFound)
	}
	if err != nil {
		return Session{}, User{}, fmt.Errorf("store: session: %w", err)
	}
	u.CreatedAt, u.UpdatedAt, u.PasswordChangedAt = u.CreatedAt.UTC(), u.UpdatedAt.UTC(), u.PasswordChangedAt.UTC()
	return s, u, nil
}

// TouchSession records activity on session id at at from addr, unless a later time is
// already recorded (another instance may have been quicker).
func (db *DB) TouchSession(ctx context.Context, id string, at time.Time, addr string) error {
	at = Time(at)
	if _, err := db.sql.ExecContext(ctx,
		`UPDATE sessions SET last_seen_at = $1, addr = $2 WHERE id = $3 AND last_seen_at < $1`, at, addr, id); err != nil {
		return fmt.Errorf("store: touch session: %w", err)
	}
	return nil
}

// UserSessions lists the user's sessions seen at or after seenSince and created at or
// after createdSince (the live ones), most recently active first.
func (db *DB) UserSessions(ctx context.Context, userID string, seenSince, createdSince time.Time) ([]Session, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT `+sessionColumns+` FROM sessions
		WHERE user_id = $1 AND last_seen_at >= $2 AND created_at >= $3
		ORDER BY last_seen_at DESC, id DESC`, userID, Time(seenSince), Time(createdSince))
	if err != nil {
		return nil, fmt.Errorf("store: list sessions: %w", err)
	}
	defer rows.Close()
	var out []Session
	for rows.Next() {
		s, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list sessions: %w", err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list sessions: %w", err)
	}
	return out, nil
}

// DeleteSession ends the user's session id; ErrNotFound when the user has no such
// session (already ended, or someone else's).
func (db *DB) DeleteSession(ctx context.Context, userID, id string) error {
	res, err := db.sql.ExecContext(ctx, `DELETE FROM sessions WHERE id = $1 AND user_id = $2`, id, userID)
	if err != nil {
		return fmt.Errorf("store: end session: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("store: end session: %w", err)
	} else if n == 0 {
		return fmt.Errorf("store: end session %q: %w", id, ErrNotFound)
	}
	return nil
}

// DeleteSessionByToken ends the session stored under tokenHash and returns it;
// ErrNotFound when there is none.
func (db *DB) DeleteSessionByToken(ctx context.Context, tokenHash string) (Session, error) {
	s, err := scanSession(db.sql.QueryRowContext(ctx,
		`DELETE FROM sessions WHERE token_hash = $1 RETURNING `+sessionColumns, tokenHash))
	if errors.Is(err, sql.ErrNoRows) {
		return Session{}, fmt.Errorf("store: end session: %w", ErrNotFound)
	}
	if err != nil {
		return Session{}, fmt.Errorf("store: end session: %w", err)
	}
	return s, nil
}

// DeleteUserSessions ends every session of the user and returns how many there were.
func (db *DB) DeleteUserSessions(ctx context.Context, userID string) (int64, error) {
	return deleteUserSessions(ctx, db.sql, userID)
}

// execer is what *sql.DB and *sql.Tx share for writes.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

func deleteUserSessions(ctx context.Context, ex execer, userID string) (int64, error) {
	res, err := ex.ExecContext(ctx, `DELETE FROM sessions WHERE user_id = $1`, userID)
	if err != nil {
		return 0, fmt.Errorf("store: end sessions: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("store: end sessions: %w", err)
	}
	return n, nil
}

// PruneSessions deletes sessions last seen before seenBefore or created before
// createdBefore: they can no longer be used. It returns how many were deleted.
func (db *DB) PruneSessions(ctx context.Context, seenBefore, createdBefore time.Time) (int64, error) {
	res, err := db.sql.ExecContext(ctx, `DELETE FROM sessions WHERE last_seen_at < $1 OR created_at < $2`,
		Time(seenBefore), Time(createdBefore))
	if err != nil {
		return 0, fmt.Errorf("store: prune sessions: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("store: prune sessions: %w", err)
	}
	return n, nil
}
