package parents

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"

	"github.com/sekolah/portal/internal/audit"
	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/store"
)

// A parent page link is /p/{token}. The token is a keyed hash (HMAC-SHA256 with the
// portal's link key) of the student's NIS and the link's generation: unguessable without
// the key, and the same whenever the portal puts it in a message again. The database
// keeps only its SHA-256, so a copy of the database opens no parent page; renewing the
// link moves the generation on, and the old token no longer hashes to anything.

// ErrNoLink: the token opens no parent page (wrong, or renewed since). The page answers
// a plain 404 for both, alike.
var ErrNoLink = errors.New("parents: no such link")

// tokenBytes is the token's length before encoding: 192 bits, 32 characters.
const tokenBytes = 24

// Link is a student's parent page link.
type Link struct {
	NIS   string
	Token string
	// Path is the page's path, /p/{token}.
	Path string
	// URL is the page's full address (PORTAL_PUBLIC_URL + Path), what a message carries;
	// "" when the portal's public address is not configured.
	URL        string
	Generation int64
}

func (s *Service) token(nis string, generation int64) string {
	m := hmac.New(sha256.New, s.Key)
	m.Write([]byte("parent page\x00" + nis + "\x00" + strconv.FormatInt(generation, 10)))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:tokenBytes])
}

func hashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

func (s *Service) link(nis string, generation int64) Link {
	t := s.token(nis, generation)
	l := Link{NIS: nis, Token: t, Path: "/p/" + t, Generation: generation}
	if s.PublicURL != "" {
		l.URL = s.PublicURL + l.Path
	}
	return l
}

func (s *Service) checkKey() error {
	if len(s.Key) < 32 {
		return errors.New("parents: no link key")
	}
	return nil
}

// Link is nis's parent page link, made on first use.
func (s *Service) Link(ctx context.Context, nis string) (Link, error) {
	if err := s.checkKey(); err != nil {
		return Link{}, err
	}
	l, err := s.DB.ParentLink(ctx, nis)
	if errors.Is(err, store.ErrNotFound) {
		first := s.link(nis, 1)
		l, err = s.DB.CreateParentLink(ctx, store.ParentLink{NIS: nis, TokenHash: hashToken(first.Token), Generation: 1,
			CreatedAt: s.Clock.Now(), CreatedBy: "portal"})
	}
	if err != nil {
		return Link{}, fmt.Errorf("parents: %w", err)
	}
	return s.link(nis, l.Generation), nil
}

// RenewLink gives nis a new parent page link for actor: the old one stops working at
// once. Audited.
func (s *Service) RenewLink(ctx context.Context, actor auth.Actor, nis, name string) (Link, error) {
	cur, err := s.Link(ctx, nis)
	if err != nil {
		return Link{}, err
	}
	next := s.link(nis, cur.Generation+1)
	now := s.Clock.Now()
	entry := auditLinkRenew.With(audit.Student(nis, name))
	entry.Actor, entry.Target, entry.Outcome, entry.At, entry.Detail = actor.Audit(), nis, audit.OK, now, fmt.Sprintf("generation %d", next.Generation)
	if err := s.DB.ReplaceParentLink(ctx, store.ParentLink{NIS: nis, TokenHash: hashToken(next.Token), Generation: next.Generation,
		CreatedAt: now, CreatedBy: actor.Username}, cur.Generation, entry.Row()); err != nil {
		return Link{}, fmt.Errorf("parents: %w", err)
	}
	return next, nil
}

// Resolve is the NIS a token opens; ErrNoLink for a wrong or renewed one. The stored
// hash finds the row; the token is then recomputed from the key and compared in
// constant time, so only the portal's own tokens open a page.
func (s *Service) Resolve(ctx context.Context, token string) (string, error) {
	if err := s.checkKey(); err != nil {
		return "", err
	}
	if len(token) != base64.RawURLEncoding.EncodedLen(tokenBytes) {
		return "", ErrNoLink
	}
	l, err := s.DB.ParentLinkByHash(ctx, hashToken(token))
	if errors.Is(err, store.ErrNotFound) {
		return "", ErrNoLink
	}
	if err != nil {
		return "", fmt.Errorf("parents: %w", err)
	}
	if !hmac.Equal([]byte(s.token(l.NIS, l.Generation)), []byte(token)) {
		return "", ErrNoLink
	}
	return l.NIS, nil
}
