package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/store"
)

// ErrCallbackRefused means a payment callback's signature or body was refused
// (billing.ErrBadSignature or billing.ErrBadCallback are wrapped): nothing was stored;
// the receiver answers 4xx.
var ErrCallbackRefused = errors.New("ledger: payment callback refused")

// CallbackResult says what receiving a callback did.
type CallbackResult struct {
	RefNumber string
	NIS       string
	// Duplicate: this ref_number was stored before (the service sent it again).
	Duplicate bool
	// Applied components changed in the ledger; Pending ones the ledger does not have
	// yet (a sync brings them, already paid).
	Applied, Pending int
}

// ReceiveCallback takes a payment callback as it arrived (the X-IDN-CS header and the
// raw body), checks it with the configured verifier (the billing client's
// VerifyCallback), and in one transaction stores it once per ref_number, marks its
// components paid and writes the audit entry. It returns only once that is committed:
// the receiver answers 2xx then, and anything else makes the service send it again,
// which is harmless. A refused callback (ErrCallbackRefused) stores nothing.
func (l *Ledger) ReceiveCallback(ctx context.Context, signature string, body []byte) (CallbackResult, error) {
	if l.verify == nil {
		return CallbackResult{}, fmt.Errorf("%w: the ledger has no callback verifier", ErrCallbackRefused)
	}
	cb, err := l.verify(signature, body)
	if err != nil {
		return CallbackResult{}, fmt.Errorf("%w: %w", ErrCallbackRefused, err)
	}
	res := CallbackResult{RefNumber: cb.RefNumber, NIS: cb.NIS}
	now := store.Time(l.now())
	err = l.writeTx(ctx, func(tx *sql.Tx) error {
		var deliveries, pending int64
		err := tx.QueryRowContext(ctx, `SELECT deliveries, pending FROM ledger_callbacks WHERE ref_number = $1`, cb.RefNumber).
			Scan(&deliveries, &pending)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return err
		default:
			// Sent again: stored already. Components that were not in the ledger then
			// may be now.
			res.Duplicate = true
			if pending > 0 {
				applied, left, err := l.applyCallbackTx(ctx, tx, cb)
				if err != nil {
					return err
				}
				res.Applied, res.Pending = applied, left
				if _, err := tx.ExecContext(ctx, `UPDATE ledger_callbacks SET pending = $1 WHERE ref_number = $2`, left, cb.RefNumber); err != nil {
					return err
				}
			}
			_, err := tx.ExecContext(ctx, `UPDATE ledger_callbacks SET deliveries = deliveries + 1, last_received_at = $1
				WHERE ref_number = $2`, now, cb.RefNumber)
			return err
		}
		applied, left, err := l.applyCallbackTx(ctx, tx, cb)
		if err != nil {
			return err
		}
		res.Applied, res.Pending = applied, left
		if _, err := tx.ExecContext(ctx, `INSERT INTO ledger_callbacks (ref_number, bill_key, paid_us, total, components,
			applied, pending, deliveries, received_at, last_received_at, signature, body)
			VALUES ($1, $2, $3, $4, $5, $6, $7, 1, $8, $8, $9, $10)`,
			cb.RefNumber, cb.NIS, nullInt(micros(cb.PaidAt)), cb.Total, len(cb.Components), applied, left, now,
			strings.TrimSpace(signature), string(body)); err != nil {
			return err
		}
		return store.AppendAuditTx(ctx, tx, store.AuditEntry{At: now, Actor: ActorService, ActorRole: ActorRole,
			Action: ActionCallback, Target: cb.NIS, Outcome: "ok", Detail: truncate(l.callbackDetail(cb, applied, left), 1000)})
	})
	if err != nil {
		return CallbackResult{}, fmt.Errorf("ledger: store payment callback %s: %w", cb.RefNumber, err)
	}
	if res.Pending > 0 {
		l.log.Info("ledger: payment callback names components not in the ledger yet; the next sync brings them",
			"ref", cb.RefNumber, "pending", res.Pending)
	}
	return res, nil
}

func (l *Ledger) callbackDetail(cb billing.Callback, applied, pending int) string {
	p := i18n.NewPrinter(i18n.English, l.loc)
	ids := make([]string, len(cb.Components))
	for i, c := range cb.Components {
		ids[i] = c.ComponentID
	}
	s := fmt.Sprintf("payment ref %s", cb.RefNumber)
	if cb.MerchantName != "" {
		s += " at " + cb.MerchantName
	}
	s += fmt.Sprintf(", %s paid %s for %d components (%s)", i18n.Rupiah(cb.Total), p.DateTime(cb.PaidAt), len(cb.Components), strings.Join(ids, ","))
	switch {
	case pending > 0:
		s += fmt.Sprintf("; %d recorded, %d not in the ledger yet", applied, pending)
	case applied < len(cb.Components):
		s += fmt.Sprintf("; %d recorded, %d already known", applied, len(cb.Components)-applied)
	}
	return s
}

// applyCallbackTx marks the callback's components paid. It never moves a component
// back: one already paid or deleted is left as it is, and so is one the ledger knows
// changed after the payment's date (the callback is older than what the ledger
// holds). It returns how many it changed and how many the ledger does not have.
func (l *Ledger) applyCallbackTx(ctx context.Context, tx *sql.Tx, cb billing.Callback) (applied, pending int, err error) {
	ids := make([]string, len(cb.Components))
	for i, c := range cb.Components {
		ids[i] = c.ComponentID
	}
	old, err := loadRows(ctx, tx, ids)
	if err != nil {
		return 0, 0, err
	}
	paidUS := micros(cb.PaidAt)
	var in []row
	for _, c := range cb.Components {
		r, ok := old[c.ComponentID]
		switch {
		case !ok:
			pending++
			continue
		case r.Kind != kindOpen:
			continue
		case paidUS != 0 && r.UpdatedUS > paidUS:
			l.log.Warn("ledger: payment callback older than the component's last change; left to the sync",
				"ref", cb.RefNumber, "component", c.ComponentID)
			continue
		}
		r.Kind, r.State, r.RawState = kindPaid, string(billing.StatePaid), c.RawState
		if c.State == billing.StatePaid && r.RawState == "" {
			r.RawState = string(billing.StatePaid)
		}
		r.AmountPaid, r.PaidUS, r.Ref = c.AmountPaid, paidUS, c.RefNumber
		if paidUS != 0 {
			r.PaidDay = l.paidDay(paidUS)
		}
		// The service's own record (with its updated_at) will replace this at the next
		// sync; until then no record read before the payment may undo it.
		r.UpdatedUS = 0
		in = append(in, r)
	}
	res, _, err := l.writeRows(ctx, tx, in, old, false)
	if err != nil {
		return 0, 0, err
	}
	return res.Changed(), pending, nil
}

// applyPendingCallbacks applies again the stored callbacks that named components the
// ledger did not have, now that a sync may have brought them; it returns how many
// components it changed.
func (l *Ledger) applyPendingCallbacks(ctx context.Context) (int, error) {
	if l.verify == nil {
		return 0, nil
	}
	rows, err := l.sql.QueryContext(ctx, `SELECT ref_number, signature, body FROM ledger_callbacks WHERE pending > 0`)
	if err != nil {
		return 0, fmt.Errorf("ledger: pending callbacks: %w", err)
	}
	type stored struct{ ref, sig, body string }
	var list []stored
	for rows.Next() {
		var s stored
		if err := rows.Scan(&s.ref, &s.sig, &s.body); err != nil {
			rows.Close()
			return 0, fmt.Errorf("ledger: pending callbacks: %w", err)
		}
		list = append(list, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("ledger: pending callbacks: %w", err)
	}
	total := 0
	for _, s := range list {
		cb, err := l.verify(s.sig, []byte(s.body))
		if err != nil {
			l.log.Error("ledger: a stored callback no longer verifies", "ref", s.ref, "err", err)
			continue
		}
		err = l.writeTx(ctx, func(tx *sql.Tx) error {
			applied, left, err := l.applyCallbackTx(ctx, tx, cb)
			if err != nil {
				return err
			}
			total += applied
			_, err = tx.ExecContext(ctx, `UPDATE ledger_callbacks SET pending = $1 WHERE ref_number = $2`, left, s.ref)
			return err
		})
		if err != nil {
			return total, fmt.Errorf("ledger: pending callback %s: %w", s.ref, err)
		}
	}
	return total, nil
}

// StoredCallback is a payment callback as the ledger keeps it.
type StoredCallback struct {
	RefNumber      string
	NIS            string
	PaidAt         time.Time
	Total          int64
	Components     int
	Applied        int // components it changed on arrival
	Pending        int // components still waiting for a sync
	Deliveries     int // how often the service sent it
	ReceivedAt     time.Time
	LastReceivedAt time.Time
	Body           string // as received
}

// Callbacks lists the stored callbacks, newest first (at most limit; 0: 50).
func (l *Ledger) Callbacks(ctx context.Context, limit int) ([]StoredCallback, error) {
	if limit <= 0 {
		limit = 50
	}
	rows, err := l.sql.QueryContext(ctx, `SELECT ref_number, bill_key, paid_us, total, components, applied, pending,
		deliveries, received_at, last_received_at, body FROM ledger_callbacks ORDER BY received_at DESC, ref_number LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("ledger: callbacks: %w", err)
	}
	defer rows.Close()
	var out []StoredCallback
	for rows.Next() {
		var c StoredCallback
		var paid sql.NullInt64
		var total, comps, applied, pending, deliveries int64
		var recv, last nullTime
		if err := rows.Scan(&c.RefNumber, &c.NIS, &paid, &total, &comps, &applied, &pending, &deliveries, &recv, &last, &c.Body); err != nil {
			return nil, fmt.Errorf("ledger: callbacks: %w", err)
		}
		c.PaidAt, c.Total, c.Components, c.Applied, c.Pending, c.Deliveries = instant(paid.Int64), total, int(comps), int(applied), int(pending), int(deliveries)
		c.ReceivedAt, c.LastReceivedAt = recv.t, last.t
		out = append(out, c)
	}
	return out, rows.Err()
}

// CallbackStats is what the data page says about the payment callbacks of the days
// since Since: how many arrived, when the last one did, how many still wait for a sync
// to bring their components, and how many payments the ledger holds for those days (a
// school whose parents pay at banks and which receives no callback at all has not given
// the operator its callback address, or the address does not reach the portal).
type CallbackStats struct {
	Since    time.Time
	Received int       // callbacks (ref_numbers) first received since Since
	Last     time.Time // the last callback ever received (zero: none)
	Pending  int       // stored callbacks naming components the ledger does not have yet
	Payments int       // components paid on the days since Since, however the ledger learned of them
}

// CallbackStats counts the callbacks received since since (and the payments of those days).
func (l *Ledger) CallbackStats(ctx context.Context, since time.Time) (CallbackStats, error) {
	st := CallbackStats{Since: since}
	var received, pending, payments sql.NullInt64
	var last nullTime
	err := l.read(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM ledger_callbacks WHERE received_at >= $1),
			(SELECT MAX(last_received_at) FROM ledger_callbacks),
			(SELECT COUNT(*) FROM ledger_callbacks WHERE pending > 0)`, store.Time(since)).Scan(&received, &last, &pending); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, `SELECT SUM(components) FROM ledger_paid_totals WHERE paid_day >= $1`,
			l.paidDay(micros(since))).Scan(&payments)
	})
	if err != nil {
		return CallbackStats{}, fmt.Errorf("ledger: callback stats: %w", err)
	}
	st.Received, st.Last, st.Pending, st.Payments = int(received.Int64), last.t, int(pending.Int64), int(payments.Int64)
	return st, nil
}
