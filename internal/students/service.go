package students

import (
	"context"
	"errors"
	"fmt"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/store"
)

// Student is a student as the roster (the portal's mirror of the service's students)
// holds them: NIS, name, contact, class, where they came from, and their totals.
type Student = store.Student

// Where a student in the roster came from.
const (
	SourceSync         = store.SourceSync
	SourcePortal       = store.SourcePortal
	SourceUpload       = store.SourceUpload
	SourceRegistration = store.SourceRegistration
	SourceCheckout     = store.SourceCheckout
)

// ErrNotFound means neither the roster nor the service knows the student. It is the
// store's not-found, which every lookup of the roster wraps.
var ErrNotFound = store.ErrNotFound

// Service is the roster for the pages: a student by NIS (fetched from the service when
// the roster lacks them), pages of the roster, its classes, and whether a student can be
// deleted. Changes to students go through changes.Writer.
type Service struct {
	DB      *store.DB
	Billing *billing.Client
	Clock   clock.Clock
}

// Get is the student nis: from the roster, or else from the service, which adds them to
// the roster (source sync). ErrNotFound when neither knows them; a failure of the service
// is returned as the client's error.
func (s *Service) Get(ctx context.Context, nis string) (Student, error) {
	st, err := s.DB.StudentByNIS(ctx, nis)
	if !errors.Is(err, store.ErrNotFound) {
		return st, err
	}
	st, err = Fetch(ctx, s.Billing, s.DB, nis, s.Clock.Now())
	if errors.Is(err, billing.ErrNotFound) {
		return Student{}, fmt.Errorf("students: %s: %w", nis, ErrNotFound)
	}
	return st, err
}

// InRoster is the roster's entry of nis, without asking the service; ErrNotFound when
// the roster does not have it.
func (s *Service) InRoster(ctx context.Context, nis string) (Student, error) {
	return s.DB.StudentByNIS(ctx, nis)
}

// ByNIS are the roster's entries of the given NIS, keyed by NIS; those it lacks are absent.
func (s *Service) ByNIS(ctx context.Context, nis []string) (map[string]Student, error) {
	return s.DB.StudentsByNIS(ctx, nis)
}

// Classes are the roster's classes in the portal's one order of classes (natural:
// "Kelas 7A" … "Kelas 9C" before "Kelas 10A"), for filters and the class fields' choices.
func (s *Service) Classes(ctx context.Context) ([]string, error) {
	classes, err := s.DB.Classes(ctx)
	if err != nil {
		return nil, fmt.Errorf("students: classes: %w", err)
	}
	i18n.SortNatural(classes)
	return classes, nil
}

// Query asks for a page of the roster: a search by NIS or name, a class, the page.
type Query struct {
	Search, Class string
	// Statuses keeps the students of these standings (none: every student).
	Statuses      []Status
	Offset, Limit int
}

// Page is a page of the roster, class by class in the natural order, then by NIS.
type Page struct {
	Rows []Student
	// Total is how many students match in all.
	Total int
	// Classes are every class of the roster, in the natural order.
	Classes []string
}

// List is a page of the roster matching q.
func (s *Service) List(ctx context.Context, q Query) (Page, error) {
	classes, err := s.Classes(ctx)
	if err != nil {
		return Page{}, err
	}
	statuses := make([]string, len(q.Statuses))
	for i, st := range q.Statuses {
		statuses[i] = string(st)
	}
	rows, total, err := s.DB.ListStudents(ctx, store.StudentFilter{Query: q.Search, Class: q.Class, Statuses: statuses,
		Offset: q.Offset, Limit: q.Limit, ClassOrder: classes})
	if err != nil {
		return Page{}, fmt.Errorf("students: list: %w", err)
	}
	return Page{Rows: rows, Total: total, Classes: classes}, nil
}

// HasPayments asks the service whether nis has a paid component: such a student cannot be
// deleted (see the package function).
func (s *Service) HasPayments(ctx context.Context, nis string) (bool, error) {
	return HasPayments(ctx, s.Billing, nis)
}

// AtService reports whether the service knows nis: what settles a refused creation whose
// words do not say that the NIS exists.
func (s *Service) AtService(ctx context.Context, nis string) (bool, error) {
	_, err := s.Billing.Student(ctx, nis)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, billing.ErrNotFound):
		return false, nil
	}
	return false, fmt.Errorf("students: is %s at the service: %w", nis, err)
}
