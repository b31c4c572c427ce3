package school

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// Letters are numbered like receipts, with a pattern of their own: Indonesian letter
// numbers put the sequence first and the month in Roman numerals ("045/KEU/XI/2026").

// DefaultLetterPattern numbers letters when the school set no pattern of its own.
const DefaultLetterPattern = "{seq}/KEU/{MMR}/{YYYY}"

// LetterPattern is the school's letter pattern, or DefaultLetterPattern when it has none
// (or a broken one, which the profile form would not have saved).
func (s *Service) LetterPattern(ctx context.Context) (Pattern, error) {
	prof, err := s.DB.SchoolProfile(ctx)
	if err != nil {
		return Pattern{}, err
	}
	if prof.LetterPattern != "" {
		if p, err := ParsePattern(prof.LetterPattern); err == nil {
			return p, nil
		}
	}
	return ParsePattern(DefaultLetterPattern)
}

// LetterNumbers gives the letters of kind ("bill", "reminder") to the students nis, in
// that order, their numbers of today: consecutive numbers of the school's letter
// sequence, the same ones whenever the same set is printed again today.
func (s *Service) LetterNumbers(ctx context.Context, kind string, nis []string) ([]string, error) {
	if len(nis) == 0 {
		return nil, nil
	}
	p, err := s.LetterPattern(ctx)
	if err != nil {
		return nil, err
	}
	day := s.today()
	sum := sha256.Sum256([]byte(kind + "\x00" + day.Format("2006-01-02") + "\x00" + p.String() + "\x00" + strings.Join(nis, "\x00")))
	first, err := s.DB.LetterBatch(ctx, hex.EncodeToString(sum[:]), "letter:"+p.Scope(day), len(nis))
	if err != nil {
		return nil, fmt.Errorf("school: letter numbers: %w", err)
	}
	out := make([]string, len(nis))
	for i := range nis {
		out[i] = p.Render(day, first+int64(i))
	}
	return out, nil
}
