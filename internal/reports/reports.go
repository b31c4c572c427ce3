// Package reports computes every figure the portal shows about money: the principal's
// dashboard and the four reports (payments received, outstanding by student, a student's
// statement, per account code), on screen and as .xlsx/.csv exports.
//
// All figures come from bill components read through the billing client's search
// iterator (pages of billing.MaxLimit) and from the roster for names and classes. The same
// functions build the rows the screen pages through and the rows an export streams, so the
// two always agree. Results for the screen are cached per query for a short time; exports
// always read afresh and never hold all their rows (see export.go).
package reports

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/component"
	"github.com/sekolah/portal/internal/store"
)

// Source reads bill components across pages; *billing.Client is the production one.
type Source interface {
	All(ctx context.Context, q billing.Query) iter.Seq2[billing.Bill, error]
	AllForStudent(ctx context.Context, nis string, q billing.Query) iter.Seq2[billing.Bill, error]
}

// Roster is where names and classes come from; *store.DB is the production one.
type Roster interface {
	AllStudents(ctx context.Context, fn func(store.Student) error) error
	StudentsByNIS(ctx context.Context, nis []string) (map[string]store.Student, error)
}

// NoClass is the class filter value that selects students the roster has no class for.
const NoClass = "-"

// Person is a student as the reports show them; Class is empty when the roster has none.
type Person struct {
	Name  string
	Class string
}

// People maps NIS to the roster's name and class.
type People map[string]Person

// person returns the roster's entry for b's student, its name falling back to the
// name the billing service holds.
func (p People) person(b billing.Bill) Person {
	pe := p[b.NIS]
	if pe.Name == "" {
		pe.Name = b.StudentName
	}
	return pe
}

// classMatches reports whether class passes the class filter f (empty: any).
func classMatches(f, class string) bool {
	switch f {
	case "":
		return true
	case NoClass:
		return class == ""
	}
	return f == class
}

// loadPeople reads the whole roster; it holds one entry per student, never per bill.
func loadPeople(ctx context.Context, r Roster) (People, error) {
	people := People{}
	if r == nil {
		return people, nil
	}
	err := r.AllStudents(ctx, func(s store.Student) error {
		people[s.NIS] = Person{Name: s.Name, Class: s.Description}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reports: roster: %w", err)
	}
	return people, nil
}

// ErrBadRange means a date range whose start is after its end.
var ErrBadRange = errors.New("reports: the range starts after it ends")

// ErrRangeTooLong means a payments range longer than MaxRangeDays.
var ErrRangeTooLong = errors.New("reports: the range is too long")

// MaxRangeDays bounds a payments range: one school year and a bit.
const MaxRangeDays = 400

// Config builds a Service.
type Config struct {
	Source Source
	Roster Roster
	// Location is the school's (and the billing service's) time zone: it decides "today"
	// and the day a payment belongs to.
	Location *time.Location
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// CacheTTL is how long screen figures are reused; 0 means DefaultCacheTTL.
	CacheTTL time.Duration
	// Logger receives failed refreshes that fell back to older figures.
	Logger *slog.Logger
}

// DefaultCacheTTL is how long screen figures are reused when Config leaves it zero.
const DefaultCacheTTL = 5 * time.Minute

// Service computes and caches the figures; it is safe for concurrent use.
type Service struct {
	src    Source
	roster Roster
	loc    *time.Location
	now    func() time.Time
	cache  *Cache
	log    *slog.Logger
}

// New returns a Service for cfg.
func New(cfg Config) *Service {
	s := &Service{
		src: cfg.Source, roster: cfg.Roster, loc: cfg.Location, now: cfg.Now,
		log: cmp.Or(cfg.Logger, slog.Default()),
	}
	if s.loc == nil {
		s.loc = time.UTC
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.cache = NewCache(cmp.Or(cfg.CacheTTL, DefaultCacheTTL), s.now)
	s.cache.OnStale = func(key string, err error) {
		s.log.Warn("reports: refresh failed; showing the last good figures", "query", key, "err", err)
	}
	return s
}

// Location is the zone days are read in.
func (s *Service) Location() *time.Location { return s.loc }

// Today is the current date in the school's zone as a UTC-midnight day.
func (s *Service) Today() time.Time { return billing.DayIn(s.now(), s.loc) }

// dayNum counts days since 1970 for t's own calendar date, for cheap comparisons.
func dayNum(t time.Time) int {
	y, m, d := t.Date()
	return int(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400)
}

// SchoolYearStart is 1 July of the school year (July–June) that contains day.
func SchoolYearStart(day time.Time) time.Time {
	y := day.Year()
	if day.Month() < time.July {
		y--
	}
	return time.Date(y, time.July, 1, 0, 0, 0, 0, time.UTC)
}

// MonthStart is the first day of day's month.
func MonthStart(day time.Time) time.Time {
	return time.Date(day.Year(), day.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// MonthEnd is the last day of day's month.
func MonthEnd(day time.Time) time.Time {
	return time.Date(day.Year(), day.Month()+1, 0, 0, 0, 0, 0, time.UTC)
}

// paymentParts splits what was paid into the component's amount and the penalty
// part (what was paid above the amount), so the two always add up to the payment.
func paymentParts(b billing.Bill) (amount, penalty int64) {
	penalty = max(b.AmountPaid-b.Amount, 0)
	return b.AmountPaid - penalty, penalty
}

// Status is a component's state as the reports name it: internal/component's reading of
// it today, so the reports and every page agree.
type Status = component.Status

// The statuses: overdue is unpaid, past due and not yet expired.
const (
	StatusPaid        = component.StatusPaid
	StatusProvisioned = component.StatusProvisioned
	StatusOverdue     = component.StatusOverdue
	StatusExpired     = component.StatusExpired
)

// DaysBetween counts the days from day a to day b (both calendar days): positive when b
// is later. DaysBetween(due, today) is how late a component is, as i18n's RelDays reads it.
func DaysBetween(a, b time.Time) int { return dayNum(b.UTC()) - dayNum(a.UTC()) }
