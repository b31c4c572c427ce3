package ledger

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Observer is told what the ledger does that its tables do not keep, for the portal's
// metrics (internal/metrics implements it; Config.Observer, nil: nobody is told). What
// the tables keep (the callbacks by status, the last sync that ended well) is read
// from them when the metrics are scraped (CallbackTally, Freshness, Counts), the same
// on every instance. The methods must be quick: they run on the caller's goroutine.
type Observer interface {
	// CallbackRefused: a payment callback's signature or body was refused; nothing of it
	// was stored.
	CallbackRefused()
	// CallbackSettled: this instance recorded the service's answer for a stored callback,
	// now confirmed or disputed, waited since the callback first arrived.
	CallbackSettled(status CallbackStatus, waited time.Duration)
	// SyncRan: this instance ran a sync of kind (RunFill, RunIncremental, RunReconcile)
	// that ended well (problem "") or failed for problem (a Problem constant).
	SyncRan(kind, problem string, took time.Duration)
}

// unobserved is the Observer of a ledger given none.
type unobserved struct{}

func (unobserved) CallbackRefused()                              {}
func (unobserved) CallbackSettled(CallbackStatus, time.Duration) {}
func (unobserved) SyncRan(string, string, time.Duration)         {}

// CallbackTally is the payment callbacks as the ledger holds them (one row per
// reference, none ever dropped), for the metrics: how many stand in each status, how many
// deliveries came and how many of them carried another body than the first, and when the
// last one arrived; the unconfirmed ones' announced total and the oldest's arrival.
type CallbackTally struct {
	ByStatus         map[CallbackStatus]int
	Deliveries       int
	OtherBodies      int
	LastReceived     time.Time // zero: none ever
	UnconfirmedTotal int64
	UnconfirmedSince time.Time // zero: none waits
}

// Received is how many callbacks (references) were ever stored.
func (t CallbackTally) Received() int {
	n := 0
	for _, c := range t.ByStatus {
		n += c
	}
	return n
}

// CallbackTally counts the stored callbacks (one read of the table, grouped by status).
func (l *Ledger) CallbackTally(ctx context.Context) (CallbackTally, error) {
	t := CallbackTally{ByStatus: map[CallbackStatus]int{}}
	rows, err := l.sql.QueryContext(ctx, `SELECT status, COUNT(*), SUM(deliveries), SUM(other_bodies), MAX(last_received_at),
		SUM(total), MIN(received_at) FROM ledger_callbacks GROUP BY status`)
	if err != nil {
		return CallbackTally{}, fmt.Errorf("ledger: callback tally: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var status string
		var n, deliveries, others, total sql.NullInt64
		var last, first nullTime
		if err := rows.Scan(&status, &n, &deliveries, &others, &last, &total, &first); err != nil {
			return CallbackTally{}, fmt.Errorf("ledger: callback tally: %w", err)
		}
		t.ByStatus[CallbackStatus(status)] = int(n.Int64)
		t.Deliveries += int(deliveries.Int64)
		t.OtherBodies += int(others.Int64)
		if last.t.After(t.LastReceived) {
			t.LastReceived = last.t
		}
		if CallbackStatus(status) == CallbackUnconfirmed {
			t.UnconfirmedTotal, t.UnconfirmedSince = total.Int64, first.t
		}
	}
	if err := rows.Err(); err != nil {
		return CallbackTally{}, fmt.Errorf("ledger: callback tally: %w", err)
	}
	return t, nil
}
