package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Setting returns the value stored under key and whether it exists.
func (db *DB) Setting(ctx context.Context, key string) (string, bool, error) {
	var v string
	err := db.sql.QueryRowContext(ctx, `SELECT value FROM settings WHERE name = $1`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("store: setting %q: %w", key, err)
	}
	return v, true, nil
}

// EnsureSetting stores value under key unless the key already has one, and
// returns whichever value is stored. Instances racing to create the same key
// (a session secret, say) all end up with the first writer's value.
func (db *DB) EnsureSetting(ctx context.Context, key, value string) (string, error) {
	if _, err := db.sql.ExecContext(ctx,
		`INSERT INTO settings (name, value, updated_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING`,
		key, value, db.Now()); err != nil {
		return "", fmt.Errorf("store: ensure setting %q: %w", key, err)
	}
	v, ok, err := db.Setting(ctx, key)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", fmt.Errorf("store: ensure setting %q: %w", key, ErrNotFound)
	}
	return v, nil
}

// SetSetting stores value under key, replacing any previous value.
func (db *DB) SetSetting(ctx context.Context, key, value string) error {
	if _, err := db.sql.ExecContext(ctx,
		`INSERT INTO settings (name, value, updated_at) VALUES ($1, $2, $3)
		 ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
		key, value, db.Now()); err != nil {
		return fmt.Errorf("store: set setting %q: %w", key, err)
	}
	return nil
}
