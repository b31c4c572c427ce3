package ledger

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/store"
)

// Config builds a Ledger.
type Config struct {
	DB *store.DB
	// Clock is the portal's clock (required): now, and the school's zone (PORTAL_TZ), which
	// decides today and the day a payment belongs to.
	Clock clock.Clock
	// Verify checks a payment callback's signature and reads its body: the billing
	// client's VerifyCallback. Without it every callback is refused.
	Verify func(signature string, body []byte) (billing.Callback, error)
	// Logger receives what the ledger cannot tell a caller (a pending callback, a sync's trouble).
	Logger *slog.Logger
	// Observer is told of refused callbacks, confirmations and sync runs, for the portal's
	// metrics (internal/metrics); nil: nobody.
	Observer Observer
}

// Ledger is the portal's read model of the billing service; safe for concurrent use.
type Ledger struct {
	db      *store.DB
	sql     *sql.DB
	loc     *time.Location   // the clock's zone
	now     func() time.Time // the clock's Now
	verify  func(string, []byte) (billing.Callback, error)
	log     *slog.Logger
	obs     Observer // the metrics' hook (observe.go)
	postgre bool
	// maxFound is how many students a bills search names one by one (defaultMaxFound;
	// a test lowers it to exercise the join).
	maxFound int
	// totals keeps the bills list's totals between pages (totals_cache.go).
	totals totalsCache
}

// New returns the ledger over cfg.DB (already migrated by store.Open). When the zone
// payment days were computed in differs from cfg.Location, they are computed again.
func New(ctx context.Context, cfg Config) (*Ledger, error) {
	if cfg.DB == nil {
		return nil, errors.New("ledger: no database")
	}
	if cfg.Clock.IsZero() {
		return nil, errors.New("ledger: no clock (internal/app hands every service the portal's)")
	}
	l := &Ledger{
		db: cfg.DB, sql: cfg.DB.SQL(), loc: cfg.Clock.Zone(), now: cfg.Clock.Now, verify: cfg.Verify,
		log:      cmp.Or(cfg.Logger, slog.Default()),
		postgre:  cfg.DB.Dialect() == store.DialectPostgres,
		maxFound: defaultMaxFound,
		obs:      cfg.Observer,
	}
	if l.obs == nil {
		l.obs = unobserved{}
	}
	if err := l.checkZone(ctx); err != nil {
		return nil, err
	}
	return l, nil
}

// indexedBy names the index SQLite must read a query's table through (PostgreSQL plans
// well on its own and has no such clause). Used where SQLite's planner, preferring an
// index that gives the GROUP BY's order, would walk every student's rows instead of the
// small range of open components that matter today.
func (l *Ledger) indexedBy(index string) string {
	if l.postgre {
		return ""
	}
	return " INDEXED BY " + index
}

// Location is the zone days are read in.
func (l *Ledger) Location() *time.Location { return l.loc }

// Now is the ledger's clock.
func (l *Ledger) Now() time.Time { return l.now() }

// Today is the current calendar day in the ledger's zone, at UTC midnight.
func (l *Ledger) Today() time.Time { return billing.DayIn(l.now(), l.loc) }

// today is Today as a day number.
func (l *Ledger) today() int64 { return dayNum(l.Today()) }

// checkZone recomputes paid_day when the ledger was last written in another zone, so
// payment days always follow the configured zone.
func (l *Ledger) checkZone(ctx context.Context) error {
	var zone string
	if err := l.sql.QueryRowContext(ctx, `SELECT zone FROM ledger_state WHERE name = 'ledger'`).Scan(&zone); err != nil {
		return fmt.Errorf("ledger: read state: %w", err)
	}
	name := l.loc.String()
	if zone == name {
		return nil
	}
	return l.writeTx(ctx, func(tx *sql.Tx) error {
		if zone != "" {
			if err := l.redoPaidDays(ctx, tx); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE ledger_state SET zone = $1 WHERE name = 'ledger'`, name); err != nil {
			return fmt.Errorf("ledger: record zone: %w", err)
		}
		return bumpChanges(ctx, tx) // payment days moved
	})
}

// redoPaidDays computes every payment day again in the ledger's zone and rebuilds the
// paid totals from them.
func (l *Ledger) redoPaidDays(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, `SELECT id, paid_us FROM ledger_components WHERE paid_us IS NOT NULL`)
	if err != nil {
		return fmt.Errorf("ledger: payment days: %w", err)
	}
	type pd struct {
		id  string
		day int64
	}
	var all []pd
	for rows.Next() {
		var id string
		var paid int64
		if err := rows.Scan(&id, &paid); err != nil {
			rows.Close()
			return fmt.Errorf("ledger: payment days: %w", err)
		}
		all = append(all, pd{id, l.paidDay(paid)})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("ledger: payment days: %w", err)
	}
	for _, p := range all {
		if _, err := tx.ExecContext(ctx, `UPDATE ledger_components SET paid_day = $1 WHERE id = $2`, p.day, p.id); err != nil {
			return fmt.Errorf("ledger: payment days: %w", err)
		}
	}
	return rebuildTotals(ctx, tx)
}

// paidDay is the day number of instant us (microseconds) in the ledger's zone.
func (l *Ledger) paidDay(us int64) int64 {
	return dayNum(billing.DayIn(time.UnixMicro(us), l.loc))
}
