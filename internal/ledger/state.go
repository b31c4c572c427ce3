package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/store"
)

// The fill states of the ledger.
const (
	FillEmpty   = "empty"   // never filled: the first sync will read everything
	FillFilling = "filling" // the first fill is under way (or was stopped part way)
	FillFilled  = "filled"
)

// The kinds of sync run, as the state and the audit log name them.
const (
	RunFill        = "fill"
	RunIncremental = "incremental"
	RunReconcile   = "reconcile"
)

// The problems a failed run is filed under, for the freshness message.
const (
	ProblemUnavailable  = "unavailable"  // the service failed or could not be reached
	ProblemTimeout      = "timeout"      // the service did not answer in time
	ProblemUnauthorized = "unauthorized" // the service refused the portal's credentials
	ProblemOther        = "other"
	ProblemStopped      = "stopped" // the instance stopped the run (shut down): nothing is wrong
)

// problemOf files a run's error under a problem.
func problemOf(err error) string {
	switch {
	case errors.Is(err, billing.ErrUnauthorized):
		return ProblemUnauthorized
	case errors.Is(err, billing.ErrTimeout):
		return ProblemTimeout
	case errors.Is(err, billing.ErrUnavailable):
		return ProblemUnavailable
	}
	return ProblemOther
}

// Freshness is how up to date the ledger is, as every instance sees it: what a page
// says beside its figures ("up to date · 12:03", "last synced 40 minutes ago: the
// service is not answering", "still filling: 120.000 components read").
type Freshness struct {
	Fill      string    // FillEmpty, FillFilling or FillFilled
	FillRead  int       // components read so far by the first fill
	FillTotal int       // about how many the first fill will read (0: not known yet)
	FillStart time.Time // when the first fill started
	// SyncedAt is when the last sync that ended well started: the ledger holds
	// everything the service held then (zero: never).
	SyncedAt     time.Time
	ReconciledAt time.Time // the last full reconcile that ended well
	// The last run, whether it ended well or not.
	LastKind    string
	LastStart   time.Time
	LastEnd     time.Time // zero while it runs
	LastOK      bool
	LastProblem string // one of the Problem constants when it failed
	LastError   string // the failure, for admins (no credentials: the client never puts them in errors)
	LastSummary string // what it found, e.g. "12 new components, 3 payments"
	// ReconcileAsked is set while an admin's request for a reconcile waits;
	// SyncAsked while a person's request to sync now waits.
	ReconcileAsked time.Time
	SyncAsked      time.Time
	ChangeSeq      int64
}

// Running reports whether a run has started and not ended (as the state says: a run
// whose instance died stays "running" until the next run starts).
func (f Freshness) Running() bool { return !f.LastStart.IsZero() && f.LastEnd.IsZero() }

// FillPermille is how far the first fill has come, in tenths of a percent (0 when its
// size is not known yet); it stays below 1000 until the fill ends.
func (f Freshness) FillPermille() int {
	if f.FillTotal <= 0 {
		return 0
	}
	return min(f.FillRead*1000/f.FillTotal, 999)
}

// Filling reports whether the ledger is still being filled for the first time: its
// figures are partial.
func (f Freshness) Filling() bool { return f.Fill != FillFilled }

// Failing reports whether the last run failed: the figures are as of SyncedAt, and
// LastProblem says why (a run stopped by its own instance shutting down is not a failure).
func (f Freshness) Failing() bool {
	return !f.LastStart.IsZero() && !f.LastEnd.IsZero() && !f.LastOK && f.LastProblem != ProblemStopped
}

// Age is how old the figures are at now (0 when never synced).
func (f Freshness) Age(now time.Time) time.Duration {
	if f.SyncedAt.IsZero() {
		return 0
	}
	return max(now.Sub(f.SyncedAt), 0)
}

// Freshness reads the sync state.
func (l *Ledger) Freshness(ctx context.Context) (Freshness, error) {
	var f Freshness
	var fillStart, synced, reconciled, asked, syncAsked, lastStart, lastEnd nullTime
	var fillRead, fillTotal, ok int64
	err := l.sql.QueryRowContext(ctx, `SELECT fill_state, fill_read, fill_total, fill_started_at, synced_at, reconciled_at,
		reconcile_asked_at, sync_asked_at, attempt_kind, attempt_started_at, attempt_ended_at, attempt_ok, attempt_error_kind,
		attempt_error, attempt_summary, change_seq FROM ledger_state WHERE name = 'ledger'`).Scan(
		&f.Fill, &fillRead, &fillTotal, &fillStart, &synced, &reconciled, &asked, &syncAsked, &f.LastKind, &lastStart, &lastEnd, &ok,
		&f.LastProblem, &f.LastError, &f.LastSummary, &f.ChangeSeq)
	if err != nil {
		return Freshness{}, fmt.Errorf("ledger: freshness: %w", err)
	}
	f.FillRead, f.FillTotal, f.LastOK = int(fillRead), int(fillTotal), ok == 1
	f.FillStart, f.SyncedAt, f.ReconciledAt, f.ReconcileAsked, f.SyncAsked = fillStart.t, synced.t, reconciled.t, asked.t, syncAsked.t
	f.LastStart, f.LastEnd = lastStart.t, lastEnd.t
	return f, nil
}

// nullTime reads a TIMESTAMP that may be NULL (or text, from SQLite).
type nullTime struct{ t time.Time }

func (n *nullTime) Scan(v any) error {
	switch x := v.(type) {
	case nil:
		n.t = time.Time{}
	case time.Time:
		n.t = x.UTC()
	case string:
		return n.parse(x)
	case []byte:
		return n.parse(string(x))
	default:
		return fmt.Errorf("ledger: cannot read %T as a time", v)
	}
	return nil
}

func (n *nullTime) parse(s string) error {
	for _, layout := range []string{"2006-01-02 15:04:05.999999999-07:00", time.RFC3339Nano, "2006-01-02 15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			n.t = t.UTC()
			return nil
		}
	}
	return fmt.Errorf("ledger: cannot read time %q", s)
}

// syncState is what the sync reads of the state before a run.
type syncState struct {
	fill           string
	fillOffset     int
	fillRead       int
	fillStart      time.Time
	paymentsSince  time.Time
	reconciledAt   time.Time
	reconcileAsked time.Time
	syncAsked      time.Time
	askSeq         int64  // requests to sync or reconcile now so far
	syncBy         string // who asked for the sync now ('' : nobody)
	reconcileBy    string // who asked for the reconcile
	searchPage     int
	studentPage    int
}

func (l *Ledger) syncState(ctx context.Context) (syncState, error) {
	var s syncState
	var fillStart, since, reconciled, asked, syncAsked nullTime
	var off, read, sp, stp int64
	var syncBy, reconcileBy string
	err := l.sql.QueryRowContext(ctx, `SELECT fill_state, fill_offset, fill_read, fill_started_at, payments_since,
		reconciled_at, reconcile_asked_at, reconcile_asked_by, sync_asked_at, sync_asked_by, ask_seq, search_page, student_page
		FROM ledger_state WHERE name = 'ledger'`).Scan(
		&s.fill, &off, &read, &fillStart, &since, &reconciled, &asked, &reconcileBy, &syncAsked, &syncBy, &s.askSeq, &sp, &stp)
	if err != nil {
		return syncState{}, fmt.Errorf("ledger: sync state: %w", err)
	}
	s.fillOffset, s.fillRead, s.searchPage, s.studentPage = int(off), int(read), int(sp), int(stp)
	s.fillStart, s.paymentsSince, s.reconciledAt, s.reconcileAsked, s.syncAsked = fillStart.t, since.t, reconciled.t, asked.t, syncAsked.t
	s.syncBy, s.reconcileBy = syncBy, reconcileBy
	return s, nil
}

// setState runs one UPDATE of the state row.
func (l *Ledger) setState(ctx context.Context, x interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}, set string, args ...any) error {
	if _, err := x.ExecContext(ctx, `UPDATE ledger_state SET `+set+` WHERE name = 'ledger'`, args...); err != nil {
		return fmt.Errorf("ledger: sync state: %w", err)
	}
	return nil
}

// AskReconcile records that by (a username) asked for a full reconcile; whichever
// instance holds the sync's lease runs it within seconds (it looks every AskPoll).
func (l *Ledger) AskReconcile(ctx context.Context, by string) error {
	return l.setState(ctx, l.sql, `reconcile_asked_at = $1, reconcile_asked_by = $2, ask_seq = ask_seq + 1`, store.Time(l.now()), by)
}

// AskSync records that by asked for an incremental sync now (the students page's sync
// button, a page's refresh); whichever instance holds the lease runs it within seconds.
func (l *Ledger) AskSync(ctx context.Context, by string) error {
	return l.setState(ctx, l.sql, `sync_asked_at = $1, sync_asked_by = $2, ask_seq = ask_seq + 1`, store.Time(l.now()), by)
}

// Counts is how many components (deleted ones left out) and students the ledger holds.
func (l *Ledger) Counts(ctx context.Context) (components, students int, err error) {
	var open, paid sql.NullInt64
	var st int64
	err = l.read(ctx, func(tx *sql.Tx) error {
		return tx.QueryRowContext(ctx, `SELECT (SELECT SUM(components) FROM ledger_open_totals),
			(SELECT SUM(components) FROM ledger_paid_totals), (SELECT COUNT(*) FROM students)`).Scan(&open, &paid, &st)
	})
	if err != nil {
		return 0, 0, fmt.Errorf("ledger: counts: %w", err)
	}
	return int(open.Int64 + paid.Int64), int(st), nil
}

// ReconcileHour is the hour after which the nightly reconcile runs (-1: never).
func (s *Syncer) ReconcileHour() int { return s.cfg.ReconcileHour }
