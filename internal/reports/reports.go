// Package reports is every figure the portal shows about money: the principal's
// dashboard and the four reports (payments received, outstanding by student, a student's
// statement, per account code), on screen and as .xlsx/.csv exports.
//
// The figures are the ledger's (internal/ledger): its SQL answers each of them from the
// portal's own read model of the billing service, so a page never waits for a walk of
// the service and the figures stay when the service is down. Their types and rules are
// the ledger's and go by the ledger's names (ledger.Dashboard, ledger.OutstandingRow,
// ledger.PaymentRow, …); this package's own words are the reports made of them
// (PaymentsReport, AccountsReport, Statement), their filters and range rules, freshness
// (Result) and the exports (Export, Format). Every result says how fresh the ledger was
// when it was read. Exports stream their rows from the ledger and never hold them all
// (see export.go).
package reports

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/store"
)

// Roster is where a statement's name and class come from; *store.DB is the production one.
type Roster interface {
	StudentsByNIS(ctx context.Context, nis []string) (map[string]store.Student, error)
}

// ErrBadRange means a date range whose start is after its end (or a missing end).
var ErrBadRange = errors.New("reports: the range starts after it ends")

// ErrRangeTooLong means a payments range longer than MaxRangeDays.
var ErrRangeTooLong = errors.New("reports: the range is too long")

// MaxRangeDays bounds a payments range: one school year and a bit.
const MaxRangeDays = 400

// Config builds a Service.
type Config struct {
	// Ledger answers every figure.
	Ledger *ledger.Ledger
	// Roster gives a statement its student's name and class.
	Roster Roster
	// Refresh, when set, asks for a sync of the ledger now (the ledger's
	// Syncer.AskSync): what a person's "refresh" does. It does not wait for the sync:
	// the pages update when it lands.
	Refresh func(ctx context.Context) error
	// Logger receives a refresh that could not be asked for.
	Logger *slog.Logger
}

// Service reads the figures from the ledger; it is safe for concurrent use.
type Service struct {
	l       *ledger.Ledger
	roster  Roster
	refresh func(ctx context.Context) error
	log     *slog.Logger
}

// New returns a Service for cfg.
func New(cfg Config) *Service {
	return &Service{l: cfg.Ledger, roster: cfg.Roster, refresh: cfg.Refresh, log: cmp.Or(cfg.Logger, slog.Default())}
}

// Result is a report's figures and how fresh the ledger was when they were read.
type Result[T any] struct {
	Value T
	Fresh ledger.Freshness
}

// Location is the zone days are read in.
func (s *Service) Location() *time.Location { return s.l.Location() }

// Today is the current date in the school's zone as a UTC-midnight day.
func (s *Service) Today() time.Time { return s.l.Today() }

// Freshness is how fresh the ledger is now.
func (s *Service) Freshness(ctx context.Context) (ledger.Freshness, error) { return s.l.Freshness(ctx) }

// Refresh asks for a sync of the ledger now (a person's "sync now"); it does not wait
// for it: open pages show the new figures when it lands. A failure to ask is logged.
func (s *Service) Refresh(ctx context.Context) {
	if s.refresh == nil {
		return
	}
	if err := s.refresh(ctx); err != nil {
		s.log.Warn("reports: ask for a sync of the ledger", "err", err)
	}
}

// read gets the ledger's freshness, asks for a sync first when refresh, then computes.
func read[T any](ctx context.Context, s *Service, refresh bool, compute func() (T, error)) (Result[T], error) {
	if refresh {
		s.Refresh(ctx)
	}
	// Freshness first: the figures are at least as fresh as it says.
	f, err := s.l.Freshness(ctx)
	if err != nil {
		return Result[T]{}, fmt.Errorf("reports: %w", err)
	}
	v, err := compute()
	if err != nil {
		return Result[T]{}, err
	}
	return Result[T]{Value: v, Fresh: f}, nil
}
