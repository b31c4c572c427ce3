package auth

import (
	"context"
	"errors"
	"fmt"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/store"
)

// User is a staff account as stored: username, name, role, language, whether disabled.
type User = store.User

// Session is one signed-in session of a staff account, as its lists show it.
type Session = store.Session

// User is the account id; an error wrapping ErrNoSuchUser (and the store's not-found)
// when there is none.
func (s *Service) User(ctx context.Context, id string) (User, error) {
	u, err := s.Store.UserByID(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return User{}, fmt.Errorf("%w: %w", ErrNoSuchUser, err)
	}
	return u, err
}

// Users are every account, by username: the staff list, and how pages name who did
// something.
func (s *Service) Users(ctx context.Context) ([]User, error) {
	return s.Store.ListUsers(ctx)
}

// SetLanguage remembers the language a person chose on their account, so it follows them
// to their other devices. It changes nothing of their access, so no session ends.
func (s *Service) SetLanguage(ctx context.Context, userID string, lang i18n.Lang) error {
	l := lang.String()
	if err := s.Store.UpdateUser(ctx, userID, store.UserChange{Lang: &l}); err != nil {
		return fmt.Errorf("auth: set language: %w", err)
	}
	return nil
}
