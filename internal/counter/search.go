package counter

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/students"
)

// MaxMatches is how many students a search at the counter lists.
const MaxMatches = 8

// Match is one student a search at the counter found.
type Match struct {
	NIS, Name, Class string
	// Outstanding is what the roster last knew the student owes today; Known is false
	// when the roster has not computed it yet.
	Outstanding int64
	Known       bool
}

// Matches is the answer to a search at the counter.
type Matches struct {
	Query string
	List  []Match
	// More is how many more students match than are listed.
	More int
	// Exact is the student whose NIS was typed, when there is one: the counter opens
	// them at once.
	Exact *Match
	// NISNotFound: the query is a NIS that neither the roster nor the service knows.
	NISNotFound bool
}

// Search finds students at the counter by a part of their name or the start of their
// NIS, in the roster. A NIS (with a digit in it) that matches nobody in the roster is
// asked of the service (a student registered elsewhere since the last sync), and added to
// the roster when found; names are never sent to the service. An empty query finds
// nothing; one over students.MaxSearchLen is a problem.List of field "q", searched for
// nowhere.
func (s *Service) Search(ctx context.Context, q string) (Matches, error) {
	q = strings.Join(strings.Fields(q), " ")
	m := Matches{Query: q}
	if q == "" {
		return m, nil
	}
	var ps problem.List
	if !students.CheckSearch(&ps, "q", q) {
		return m, ps
	}
	classes, err := s.DB.Classes(ctx)
	if err != nil {
		return m, fmt.Errorf("counter: search %q: %w", q, err)
	}
	i18n.SortNatural(classes)
	found, total, err := s.DB.ListStudents(ctx, store.StudentFilter{Query: q, Limit: MaxMatches, ClassOrder: classes})
	if err != nil {
		return m, fmt.Errorf("counter: search %q: %w", q, err)
	}
	for _, st := range found {
		mt := Match{NIS: st.NIS, Name: st.Name, Class: st.Description, Outstanding: st.Outstanding, Known: !st.TotalsAt.IsZero()}
		m.List = append(m.List, mt)
		if strings.EqualFold(st.NIS, q) {
			m.Exact = &mt
		}
	}
	m.More = max(total-len(found), 0)
	if m.Exact != nil || len(m.List) > 0 || !looksLikeNIS(q) {
		return m, nil
	}
	st, err := students.Fetch(ctx, s.Billing, s.DB, q, s.now())
	switch {
	case errors.Is(err, billing.ErrNotFound):
		m.NISNotFound = true
		return m, nil
	case err != nil:
		// The roster's answer stands; the service is asked again when the student is opened.
		return m, fmt.Errorf("counter: look up NIS %s: %w", q, err)
	}
	mt := Match{NIS: st.NIS, Name: st.Name, Class: st.Description}
	m.Exact = &mt
	m.List = append([]Match{mt}, m.List...)
	return m, nil
}

// looksLikeNIS: a query the service could know as a NIS, not a name typed at the counter.
func looksLikeNIS(q string) bool {
	return students.ValidNIS(q) && strings.ContainsAny(q, "0123456789")
}

func (s *Service) now() time.Time { return s.Clock.Now() }
