package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// AdminRole is the role value the last-admin guard protects; it matches auth.Admin.
const AdminRole = "admin"

// User is a staff account.
type User struct {
	ID                string
	Username          string // lower-case; unique
	DisplayName       string
	Role              string
	Disabled          bool
	Lang              string
	PasswordHash      string
	CreatedAt         time.Time
	UpdatedAt         time.Time
	PasswordChangedAt time.Time
}

// UserChange lists the fields UpdateUser sets; nil fields stay as they are.
type UserChange struct {
	DisplayName *string
	Role        *string
	Disabled    *bool
	Lang        *string
	// PasswordHash also stamps PasswordChangedAt.
	PasswordHash *string
}

const userColumns = `id, username, display_name, role, disabled, lang, password_hash,
	created_at, updated_at, password_changed_at`

// NormalizeUsername is the stored form of a username: trimmed and lower-case,
// so look-ups ignore case.
func NormalizeUsername(username string) string {
	return strings.ToLower(strings.TrimSpace(username))
}

func scanUser(row interface{ Scan(...any) error }) (User, error) {
	var u User
	err := row.Scan(&u.ID, &u.Username, &u.DisplayName, &u.Role, &u.Disabled, &u.Lang,
		&u.PasswordHash, &u.CreatedAt, &u.UpdatedAt, &u.PasswordChangedAt)
	u.CreatedAt = u.CreatedAt.UTC()
	u.UpdatedAt = u.UpdatedAt.UTC()
	u.PasswordChangedAt = u.PasswordChangedAt.UTC()
	return u, err
}

// CreateUser inserts u, filling ID and the zero timestamps; u.Username is
// stored lower-case. A taken username gives ErrConflict.
func (db *DB) CreateUser(ctx context.Context, u *User) error {
	u.Username = NormalizeUsername(u.Username)
	if u.Username == "" {
		return errors.New("store: create user: empty username")
	}
	if u.ID == "" {
		u.ID = NewID()
	}
	now := db.Now()
	for _, t := range []*time.Time{&u.CreatedAt, &u.UpdatedAt, &u.PasswordChangedAt} {
		if t.IsZero() {
			*t = now
		} else {
			*t = Time(*t)
		}
	}
	_, err := db.sql.ExecContext(ctx, `INSERT INTO users (`+userColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		u.ID, u.Username, u.DisplayName, u.Role, u.Disabled, u.Lang, u.PasswordHash,
		u.CreatedAt, u.UpdatedAt, u.PasswordChangedAt)
	if IsUniqueViolation(err) {
		return fmt.Errorf("store: create user %q: %w", u.Username, ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("store: create user %q: %w", u.Username, err)
	}
	return nil
}

// UserByUsername finds a user ignoring case; ErrNotFound when there is none.
func (db *DB) UserByUsername(ctx context.Context, username string) (User, error) {
	u, err := scanUser(db.sql.QueryRowContext(ctx,
		`SELECT `+userColumns+` FROM users WHERE username = $1`, NormalizeUsername(username)))
	if errors.Is(err, sql.ErrNoRows) {
		return User{}, fmt.Errorf("store: user %q: %w", NormalizeUsername(username), ErrNotFound)
	}
	if err != nil {
		return User{}, fmt.Errorf("store: user by username: %w", err)
	}
	return u, nil
}

// UserByID finds a user by id; ErrNotFound when there is none.
func (db *DB) UserByID(ctx context.Context, id string) (User, error) {
	u, err := scanUser(db.sql.QueryRowContext(ctx,
		`SELECT `+userColumns+` FROM users WHERE id = $1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return User{}, fmt.Errorf("store: user id %q: %w", id, ErrNotFound)
	}
	if err != nil {
		return User{}, fmt.Errorf("store: user by id: %w", err)
	}
	return u, nil
}

// ListUsers returns every user ordered by username.
func (db *DB) ListUsers(ctx context.Context) ([]User, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT `+userColumns+` FROM users ORDER BY username`)
	if err != nil {
		return nil, fmt.Errorf("store: list users: %w", err)
	}
	defer rows.Close()
	var users []User
	for rows.Next() {
		u, err := scanUser(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list users: %w", err)
		}
		users = append(users, u)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list users: %w", err)
	}
	return users, nil
}

// CountUsers returns how many accounts exist (disabled ones included).
func (db *DB) CountUsers(ctx context.Context) (int, error) {
	var n int
	if err := db.sql.QueryRowContext(ctx, `SELECT COUNT(*) FROM users`).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: count users: %w", err)
	}
	return n, nil
}

// CountAdmins returns how many enabled admin accounts exist.
func (db *DB) CountAdmins(ctx context.Context) (int, error) {
	var n int
	if err := db.sql.QueryRowContext(ctx, `SELECT COUNT(*) FROM users WHERE role = $1 AND disabled = $2`, AdminRole, false).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: count admins: %w", err)
	}
	return n, nil
}

// UpdateUser applies change to the user id. A change that would leave no
// enabled admin (while one existed) is refused with ErrLastAdmin; the check and
// the write share one transaction so two concurrent demotions cannot both pass.
func (db *DB) UpdateUser(ctx context.Context, id string, change UserChange) error {
	_, err := db.updateUser(ctx, id, change, false)
	return err
}

// UpdateUserEndingSessions applies change like UpdateUser and, in the same
// transaction, ends every session of the user: the change and the sign-out happen
// together or not at all. It returns how many sessions ended.
func (db *DB) UpdateUserEndingSessions(ctx context.Context, id string, change UserChange) (int64, error) {
	return db.updateUser(ctx, id, change, true)
}

func (db *DB) updateUser(ctx context.Context, id string, change UserChange, endSessions bool) (int64, error) {
	var sets []string
	var args []any
	add := func(column string, v any) {
		args = append(args, v)
		sets = append(sets, fmt.Sprintf("%s = $%d", column, len(args)))
	}
	now := db.Now()
	if change.DisplayName != nil {
		add("display_name", *change.DisplayName)
	}
	if change.Role != nil {
		add("role", *change.Role)
	}
	if change.Disabled != nil {
		add("disabled", *change.Disabled)
	}
	if change.Lang != nil {
		add("lang", *change.Lang)
	}
	if change.PasswordHash != nil {
		add("password_hash", *change.PasswordHash)
		add("password_changed_at", now)
	}
	add("updated_at", now)
	args = append(args, id)
	query := fmt.Sprintf(`UPDATE users SET %s WHERE id = $%d`, strings.Join(sets, ", "), len(args))
	guard := change.Role != nil || change.Disabled != nil

	var ended int64
	err := db.InTx(ctx, func(tx *sql.Tx) error {
		var before int
		if guard {
			var err error
			if before, err = db.lockedAdminCount(ctx, tx); err != nil {
				return err
			}
		}
		res, err := tx.ExecContext(ctx, query, args...)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return ErrNotFound
		}
		if guard && before > 0 {
			after, err := enabledAdminCount(ctx, tx)
			if err != nil {
				return err
			}
			if after == 0 {
				return ErrLastAdmin
			}
		}
		if endSessions {
			ended, err = deleteUserSessions(ctx, tx, id)
		}
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: update user %q: %w", id, err)
	}
	return ended, nil
}

// lockedAdminCount counts enabled admins; on PostgreSQL it first locks the
// admin rows so concurrent guarded updates run one after the other (SQLite's
// immediate transactions already do).
func (db *DB) lockedAdminCount(ctx context.Context, tx *sql.Tx) (int, error) {
	if db.dialect == DialectPostgres {
		rows, err := tx.QueryContext(ctx, `SELECT id FROM users WHERE role = $1 FOR UPDATE`, AdminRole)
		if err != nil {
			return 0, err
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return 0, err
		}
	}
	return enabledAdminCount(ctx, tx)
}

func enabledAdminCount(ctx context.Context, tx *sql.Tx) (int, error) {
	var n int
	err := tx.QueryRowContext(ctx,
		`SELECT COUNT(*) FROM users WHERE role = $1 AND disabled = $2`, AdminRole, false).Scan(&n)
	return n, err
}

// SetPasswordHash replaces the user's password hash and stamps
// PasswordChangedAt; ErrNotFound when there is no such user.
func (db *DB) SetPasswordHash(ctx context.Context, id, hash string) error {
	return db.UpdateUser(ctx, id, UserChange{PasswordHash: &hash})
}
