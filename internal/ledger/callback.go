package ledger

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/store"
)

// A payment callback is a notice, not a fact. Its signature (X-IDN-CS) covers only the
// biller code and the reference, so whoever holds one valid signature may send any body
// under it. The ledger therefore stores a verified callback once per ref_number, as it
// first came, and records in the ledger only what the service itself answers for that
// reference (Confirmer, callback_confirm.go): the components the service says the
// payment paid, with the service's amounts and date. A callback whose student,
// components, amounts or date disagree with that answer is kept, audited and listed for
// the admins; one that waits for a service that does not answer is counted on the
// dashboard as announced but unconfirmed.

// ErrCallbackRefused means a payment callback's signature or body was refused
// (billing.ErrBadSignature or billing.ErrBadCallback are wrapped): nothing was stored;
// the receiver answers 4xx.
var ErrCallbackRefused = errors.New("ledger: payment callback refused")

// CallbackStatus is where a stored payment callback stands.
type CallbackStatus string

// The statuses of a stored callback.
const (
	// CallbackUnconfirmed: stored; the service has not said yet what it holds of the
	// payment (not asked yet, or not answering). Nothing of it is in the ledger.
	CallbackUnconfirmed CallbackStatus = "unconfirmed"
	// CallbackConfirmed: the service's records of the reference agree with the callback
	// and are in the ledger.
	CallbackConfirmed CallbackStatus = "confirmed"
	// CallbackDisputed: the service's records of the reference disagree with the callback
	// (or the service knows no such payment). What the service holds is in the ledger; the
	// callback is kept, audited and listed on the admins' Data page.
	CallbackDisputed CallbackStatus = "disputed"
	// CallbackLegacy: received before callbacks were confirmed, and applied as it came;
	// the incremental sync checks the components it marked paid (callback_check.go).
	CallbackLegacy CallbackStatus = "legacy"
)

// The audit actions of payment callbacks; the actor is the service.
const (
	// ActionCallbackDisputed: a callback disagreed with what the service holds of its
	// reference (outcome "denied"); the entry says what disagreed.
	ActionCallbackDisputed = "ledger.callback.disputed"
	// ActionCallbackResent: a reference came again with another body (outcome "denied");
	// the first body is kept. Written for the first such resend of a reference only.
	ActionCallbackResent = "ledger.callback.resent"
)

// OutcomeDenied is the audit outcome of a callback's claims the service does not bear out.
const OutcomeDenied = "denied"

// ProblemUnknownRef is why a confirmation waits when the service answers but lists no
// component with the callback's reference (yet): asked again a few times, then disputed.
const ProblemUnknownRef = "unknown_ref"

// unknownRefAttempts is how often a reference the service does not know is asked about
// before the callback is disputed: a payment the service announced is normally found at
// once; a moment's lag between its records and its callbacks is allowed for.
const unknownRefAttempts = 5

// dateSlack is how far a callback's paid_date may be from the service's record of the
// payment before it counts as a disagreement: the service's clock and a bank's stamp of
// the same payment may differ by moments, never by hours or years.
const dateSlack = 10 * time.Minute

// CallbackResult says what receiving (and, when made at once, confirming) a callback did.
type CallbackResult struct {
	RefNumber string
	NIS       string // as the callback says
	// Duplicate: this ref_number was stored before (the service sent it again).
	Duplicate bool
	// OtherBody: a resend whose body differs from the first one: counted and kept aside,
	// never applied.
	OtherBody bool
	// Status is where the callback stands now.
	Status CallbackStatus
	// Applied is how many components the confirmation changed in the ledger.
	Applied int
	// Disagreements are what the service's answer contradicted.
	Disagreements []Disagreement
}

// DisagreementKind names what a callback says that the service does not.
type DisagreementKind string

// The kinds of disagreement between a callback and the service's records of its reference.
const (
	DisagreeStudent    DisagreementKind = "student"    // bill_key is not the payment's student
	DisagreeComponent  DisagreementKind = "component"  // a component the payment does not cover
	DisagreeOmitted    DisagreementKind = "omitted"    // a component the payment covers that the callback leaves out
	DisagreeAmount     DisagreementKind = "amount"     // a component's amount_paid
	DisagreeTotal      DisagreementKind = "total"      // total_bill_amount against what the payment's components add up to
	DisagreeDate       DisagreementKind = "date"       // paid_date
	DisagreeUnknown    DisagreementKind = "unknown"    // the service has no payment with the reference
	DisagreeUnverified DisagreementKind = "unverified" // the stored body no longer verifies (the issued password changed)
)

// Disagreement is one thing a callback says that the service's records do not: the
// callback's value beside the service's (text for a NIS, rupiah for amounts, instants
// for dates; the kind says which).
type Disagreement struct {
	Kind           DisagreementKind `json:"kind"`
	Component      string           `json:"component,omitempty"` // the component's id
	CallbackText   string           `json:"callback_text,omitempty"`
	ServiceText    string           `json:"service_text,omitempty"`
	CallbackAmount int64            `json:"callback_amount,omitempty"`
	ServiceAmount  int64            `json:"service_amount,omitempty"`
	CallbackTime   time.Time        `json:"callback_time,omitzero"`
	ServiceTime    time.Time        `json:"service_time,omitzero"`
	// ComponentName and ComponentNIS are the component as the ledger knows it when the
	// callback is listed (empty when it knows no such component).
	ComponentName string `json:"-"`
	ComponentNIS  string `json:"-"`
}

// ReceiveCallback takes a payment callback as it arrived (the X-IDN-CS header and the
// raw body), checks it with the configured verifier (the billing client's
// VerifyCallback) and stores it once per ref_number, unconfirmed: nothing of it reaches
// the ledger's components until the service confirms (Confirmer.Receive does at once).
// The same reference again is counted; with another body, the first body is kept and the
// other one kept aside, audited once. A refused callback (ErrCallbackRefused) stores
// nothing. It returns once that is committed: the receiver may answer 2xx then.
func (l *Ledger) ReceiveCallback(ctx context.Context, signature string, body []byte) (CallbackResult, error) {
	if l.verify == nil {
		return CallbackResult{}, fmt.Errorf("%w: the ledger has no callback verifier", ErrCallbackRefused)
	}
	cb, err := l.verify(signature, body)
	if err != nil {
		l.obs.CallbackRefused() // metrics: nothing of it is stored
		return CallbackResult{}, fmt.Errorf("%w: %w", ErrCallbackRefused, err)
	}
	res := CallbackResult{RefNumber: cb.RefNumber, NIS: cb.NIS, Status: CallbackUnconfirmed}
	now := store.Time(l.now())
	err = l.writeTx(ctx, func(tx *sql.Tx) error {
		var status, storedSig, storedBody, storedNIS string
		var others int64
		err := tx.QueryRowContext(ctx, `SELECT status, signature, body, bill_key, other_bodies FROM ledger_callbacks WHERE ref_number = $1`,
			cb.RefNumber).Scan(&status, &storedSig, &storedBody, &storedNIS, &others)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			if _, err := tx.ExecContext(ctx, `INSERT INTO ledger_callbacks (ref_number, bill_key, bill_name, merchant, paid_us, total,
				components, applied, pending, deliveries, received_at, last_received_at, signature, body, status)
				VALUES ($1, $2, $3, $4, $5, $6, $7, 0, 0, 1, $8, $8, $9, $10, $11)`,
				cb.RefNumber, cb.NIS, cb.StudentName, cb.MerchantName, nullInt(micros(cb.PaidAt)), cb.Total, len(cb.Components), now,
				strings.TrimSpace(signature), string(body), string(CallbackUnconfirmed)); err != nil {
				return err
			}
			return bumpChanges(ctx, tx) // the dashboard counts the payments announced but unconfirmed
		case err != nil:
			return err
		}
		res.Duplicate, res.Status = true, CallbackStatus(status)
		first, ferr := l.verify(storedSig, []byte(storedBody))
		if ferr != nil {
			first = billing.Callback{RefNumber: cb.RefNumber, NIS: storedNIS} // stored under an issued password since changed
		}
		if ferr == nil && sameCallback(first, cb) || ferr != nil && storedBody == string(body) {
			_, err := tx.ExecContext(ctx, `UPDATE ledger_callbacks SET deliveries = deliveries + 1, last_received_at = $1
				WHERE ref_number = $2`, now, cb.RefNumber)
			return err
		}
		// The same reference with another body: never applied (the service's answer for
		// the reference is what counts, whatever either body says), kept for the admins.
		res.OtherBody = true
		if _, err := tx.ExecContext(ctx, `UPDATE ledger_callbacks SET deliveries = deliveries + 1, last_received_at = $1,
			other_bodies = other_bodies + 1, other_body = $2, other_body_at = $1 WHERE ref_number = $3`,
			now, string(body), cb.RefNumber); err != nil {
			return err
		}
		if others > 0 {
			return nil // audited at the first one; the count says how many followed
		}
		return store.AppendAuditTx(ctx, tx, store.AuditEntry{At: now, Actor: ActorService, ActorRole: ActorRole,
			Action: ActionCallbackResent, Target: first.NIS, Outcome: OutcomeDenied, Args: studentArgs(first),
			Detail: truncate(l.resentDetail(first, cb), 1000)})
	})
	if err != nil {
		return CallbackResult{}, fmt.Errorf("ledger: store payment callback %s: %w", cb.RefNumber, err)
	}
	if res.OtherBody {
		l.log.Warn("ledger: payment callback sent again with another body; the first body is kept and the service's answer counts",
			"ref", cb.RefNumber, "first_nis", res.NIS)
	}
	return res, nil
}

// sameCallback reports whether two readings of a callback say the same.
func sameCallback(a, b billing.Callback) bool {
	if !slices.Equal(a.Components, b.Components) || !a.PaidAt.Equal(b.PaidAt) {
		return false
	}
	a.Components, b.Components, a.PaidAt, b.PaidAt = nil, nil, time.Time{}, time.Time{}
	return reflect.DeepEqual(a, b)
}

// studentArgs are the audit arguments naming the student of a callback (its figures,
// disputed or sent again, are in the detail).
func studentArgs(cb billing.Callback) store.AuditArgs {
	a := store.AuditArgs{"nis": cb.NIS}
	if cb.StudentName != "" {
		a["name"] = cb.StudentName
	}
	return a
}

func componentIDs(cb billing.Callback) []string {
	ids := make([]string, len(cb.Components))
	for i, c := range cb.Components {
		ids[i] = c.ComponentID
	}
	return ids
}

func (l *Ledger) resentDetail(first, other billing.Callback) string {
	p := i18n.NewPrinter(i18n.English, l.loc)
	return fmt.Sprintf("payment ref %s sent again with another body (NIS %s, %s paid %s for %d components: %s); the first body (NIS %s, %s for %d components: %s) is kept, and only what the service holds of the reference is recorded",
		other.RefNumber, other.NIS, i18n.Rupiah(other.Total), p.DateTime(other.PaidAt), len(other.Components), strings.Join(componentIDs(other), ","),
		first.NIS, i18n.Rupiah(first.Total), len(first.Components), strings.Join(componentIDs(first), ","))
}

// notice is a stored callback as a confirmation reads it.
type notice struct {
	ref      string
	status   CallbackStatus
	attempts int
	cb       billing.Callback // the first body, as verified now
	// unverified: the stored body no longer verifies (the issued password changed since);
	// cb then holds only the figures stored beside it.
	unverified bool
}

// storedNotice reads callback ref for its confirmation: re-applying after a restart uses
// only the stored (first) body, never a later one.
func (l *Ledger) storedNotice(ctx context.Context, ref string) (notice, error) {
	n := notice{ref: ref}
	var status, sig, body, nis, name, merchant string
	var paid sql.NullInt64
	var total, attempts int64
	err := l.sql.QueryRowContext(ctx, `SELECT status, signature, body, bill_key, bill_name, merchant, paid_us, total, attempts
		FROM ledger_callbacks WHERE ref_number = $1`, ref).Scan(&status, &sig, &body, &nis, &name, &merchant, &paid, &total, &attempts)
	if err != nil {
		return notice{}, fmt.Errorf("ledger: stored callback %s: %w", ref, err)
	}
	n.status, n.attempts = CallbackStatus(status), int(attempts)
	cb, err := l.verify(sig, []byte(body))
	if err != nil || cb.RefNumber != ref {
		n.unverified = true
		cb = billing.Callback{RefNumber: ref, NIS: nis, StudentName: name, MerchantName: merchant, Total: total, PaidAt: instant(paid.Int64)}
	}
	n.cb = cb
	return n, nil
}

// waitingCallbacks lists the references of up to limit unconfirmed callbacks, those
// asked about least often first (one the service keeps not knowing does not hold up the
// others), then the oldest.
func (l *Ledger) waitingCallbacks(ctx context.Context, limit int) ([]string, error) {
	rows, err := l.sql.QueryContext(ctx, `SELECT ref_number FROM ledger_callbacks WHERE status = $1
		ORDER BY attempts, received_at, ref_number LIMIT $2`, string(CallbackUnconfirmed), limit)
	if err != nil {
		return nil, fmt.Errorf("ledger: waiting callbacks: %w", err)
	}
	defer rows.Close()
	var refs []string
	for rows.Next() {
		var ref string
		if err := rows.Scan(&ref); err != nil {
			return nil, fmt.Errorf("ledger: waiting callbacks: %w", err)
		}
		refs = append(refs, ref)
	}
	return refs, rows.Err()
}

// noteAttempt records that asking the service about callback ref did not settle it
// (problem: one of the Problem constants, or ProblemUnknownRef).
func (l *Ledger) noteAttempt(ctx context.Context, ref, problem string) error {
	_, err := l.sql.ExecContext(ctx, `UPDATE ledger_callbacks SET attempts = attempts + 1, last_attempt_at = $1, last_problem = $2
		WHERE ref_number = $3 AND status = $4`, store.Time(l.now()), problem, ref, string(CallbackUnconfirmed))
	if err != nil {
		return fmt.Errorf("ledger: record an attempt at callback %s: %w", ref, err)
	}
	return nil
}

// recordConfirmation records what the service answered for n's reference (payment: every
// component the service lists with that reference): the service's records are written to
// the ledger (a newer record there wins, as for any write), the callback is compared with
// them and marked confirmed or disputed with what disagreed, and audited, in one
// transaction. A callback no longer unconfirmed (another instance, or the retry beside an
// immediate attempt, got there first) is left as it is.
func (l *Ledger) recordConfirmation(ctx context.Context, n notice, payment []billing.Bill) (CallbackResult, error) {
	res := CallbackResult{RefNumber: n.ref, NIS: n.cb.NIS, Status: n.status}
	ds := compareCallback(n.cb, payment, n.unverified)
	status := CallbackConfirmed
	if len(ds) > 0 {
		status = CallbackDisputed
	}
	svc := serviceFigures(payment)
	encoded := ""
	if len(ds) > 0 {
		b, err := json.Marshal(ds)
		if err != nil {
			return res, fmt.Errorf("ledger: callback %s: %w", n.ref, err)
		}
		encoded = string(b)
	}
	now := store.Time(l.now())
	var received nullTime // when it first arrived: the metrics time its confirmation from then
	settled := false
	err := l.writeTx(ctx, func(tx *sql.Tx) error {
		var current string
		if err := tx.QueryRowContext(ctx, `SELECT status, received_at FROM ledger_callbacks WHERE ref_number = $1`, n.ref).Scan(&current, &received); err != nil {
			return err
		}
		settled = CallbackStatus(current) == CallbackUnconfirmed
		if !settled {
			res.Status = CallbackStatus(current)
			return nil
		}
		written, _, err := l.upsertTx(ctx, tx, l.rows(payment), false)
		if err != nil {
			return err
		}
		res.Applied, res.Status, res.Disagreements = written.Changed(), status, ds
		if _, err := tx.ExecContext(ctx, `UPDATE ledger_callbacks SET status = $1, confirmed_at = $2, applied = $3,
			attempts = attempts + 1, last_attempt_at = $2, last_problem = '', service_bill_key = $4, service_bill_name = $5,
			service_total = $6, service_paid_us = $7, service_components = $8, disagreements = $9 WHERE ref_number = $10`,
			string(status), now, written.Changed(), svc.NIS, svc.StudentName, svc.Total, nullInt(micros(svc.PaidAt)), svc.Components,
			encoded, n.ref); err != nil {
			return err
		}
		entry := store.AuditEntry{At: now, Actor: ActorService, ActorRole: ActorRole, Action: ActionCallback, Outcome: "ok",
			Target: svc.NIS, Args: paymentArgs(payment, svc), Detail: truncate(l.confirmedDetail(n.cb, svc, payment), 1000)}
		if status == CallbackDisputed {
			// About the student the payment really is of, when the service knows it: the
			// callback's claims are in the detail beside the service's.
			who := billing.Callback{NIS: svc.NIS, StudentName: svc.StudentName}
			if who.NIS == "" {
				who = n.cb
			}
			entry.Action, entry.Outcome = ActionCallbackDisputed, OutcomeDenied
			entry.Target, entry.Args = who.NIS, studentArgs(who)
			entry.Detail = truncate(l.disputedDetail(n.cb, svc, ds), 1000)
		}
		if err := store.AppendAuditTx(ctx, tx, entry); err != nil {
			return err
		}
		return bumpChanges(ctx, tx) // the count of unconfirmed payments moved
	})
	if err != nil {
		return res, fmt.Errorf("ledger: record the confirmation of callback %s: %w", n.ref, err)
	}
	if settled {
		l.obs.CallbackSettled(res.Status, max(now.Sub(received.t), 0))
	}
	if res.Status == CallbackDisputed && len(res.Disagreements) > 0 {
		l.log.Warn("ledger: a payment callback disagrees with the service; only the service's records are in the ledger",
			"ref", n.ref, "nis", n.cb.NIS, "disagreements", len(ds))
	}
	return res, nil
}

// PaymentFigures are what one side says of a payment: whose, how much, when, how many
// components.
type PaymentFigures struct {
	NIS, StudentName string
	Total            int64
	PaidAt           time.Time
	Components       int
}

// serviceFigures sums up the service's records of one payment.
func serviceFigures(payment []billing.Bill) PaymentFigures {
	var f PaymentFigures
	for _, b := range payment {
		if f.NIS == "" {
			f.NIS, f.StudentName = b.NIS, b.StudentName
		}
		if f.PaidAt.IsZero() || b.PaidAt.After(f.PaidAt) {
			f.PaidAt = b.PaidAt
		}
		f.Total += b.AmountPaid
		f.Components++
	}
	return f
}

// paymentArgs are the audit arguments of a confirmed payment: the service's figures.
func paymentArgs(payment []billing.Bill, svc PaymentFigures) store.AuditArgs {
	a := store.AuditArgs{"nis": svc.NIS, "total": strconv.FormatInt(svc.Total, 10), "count": strconv.Itoa(len(payment))}
	if svc.StudentName != "" {
		a["name"] = svc.StudentName
	}
	return a
}

func (l *Ledger) confirmedDetail(cb billing.Callback, svc PaymentFigures, payment []billing.Bill) string {
	p := i18n.NewPrinter(i18n.English, l.loc)
	ids := make([]string, len(payment))
	for i, b := range payment {
		ids[i] = b.ComponentID
	}
	s := fmt.Sprintf("payment ref %s", cb.RefNumber)
	if cb.MerchantName != "" {
		s += " at " + cb.MerchantName
	}
	return s + fmt.Sprintf(", confirmed by the service: %s paid %s for %d components (%s)", i18n.Rupiah(svc.Total),
		p.DateTime(svc.PaidAt), len(payment), strings.Join(ids, ","))
}

func (l *Ledger) disputedDetail(cb billing.Callback, svc PaymentFigures, ds []Disagreement) string {
	p := i18n.NewPrinter(i18n.English, l.loc)
	var parts []string
	for _, d := range ds {
		switch d.Kind {
		case DisagreeStudent:
			parts = append(parts, fmt.Sprintf("student %s, the service says %s", orNone(d.CallbackText), d.ServiceText))
		case DisagreeComponent:
			parts = append(parts, fmt.Sprintf("component %s is not part of the payment at the service", d.Component))
		case DisagreeOmitted:
			parts = append(parts, fmt.Sprintf("component %s (%s) is part of the payment but not named", d.Component, i18n.Rupiah(d.ServiceAmount)))
		case DisagreeAmount:
			parts = append(parts, fmt.Sprintf("component %s paid %s, the service says %s", d.Component, i18n.Rupiah(d.CallbackAmount), i18n.Rupiah(d.ServiceAmount)))
		case DisagreeTotal:
			parts = append(parts, fmt.Sprintf("total %s, the service's components add up to %s", i18n.Rupiah(d.CallbackAmount), i18n.Rupiah(d.ServiceAmount)))
		case DisagreeDate:
			parts = append(parts, fmt.Sprintf("paid %s, the service says %s", p.DateTime(d.CallbackTime), p.DateTime(d.ServiceTime)))
		case DisagreeUnknown:
			parts = append(parts, "the service has no payment with this reference")
		case DisagreeUnverified:
			parts = append(parts, "the stored body no longer verifies with the issued password")
		}
	}
	s := fmt.Sprintf("payment ref %s (NIS %s, %s for %d components) disagrees with the service: %s", cb.RefNumber, orNone(cb.NIS),
		i18n.Rupiah(cb.Total), len(cb.Components), strings.Join(parts, "; "))
	if svc.Components > 0 {
		s += fmt.Sprintf("; recorded as the service has it: NIS %s, %s paid %s for %d components", svc.NIS, i18n.Rupiah(svc.Total),
			p.DateTime(svc.PaidAt), svc.Components)
	} else {
		s += "; nothing recorded"
	}
	return s
}

// compareCallback lists what cb says that the service's records of its reference
// (payment) do not. Values the callback leaves out (no bill_key, no total, no date) are
// not compared; a total may include the admin fee the callback states.
func compareCallback(cb billing.Callback, payment []billing.Bill, unverified bool) []Disagreement {
	var ds []Disagreement
	if unverified {
		ds = append(ds, Disagreement{Kind: DisagreeUnverified})
	}
	if len(payment) == 0 {
		return append(ds, Disagreement{Kind: DisagreeUnknown, CallbackText: cb.NIS, CallbackAmount: cb.Total})
	}
	svc := serviceFigures(payment)
	students := map[string]bool{}
	for _, b := range payment {
		students[b.NIS] = true
	}
	if cb.NIS != "" && (!students[cb.NIS] || len(students) > 1) {
		ds = append(ds, Disagreement{Kind: DisagreeStudent, CallbackText: cb.NIS, ServiceText: svc.NIS})
	}
	byID := make(map[string]billing.Bill, len(payment))
	for _, b := range payment {
		byID[b.ComponentID] = b
	}
	named := map[string]bool{}
	for _, c := range cb.Components {
		if named[c.ComponentID] {
			continue
		}
		named[c.ComponentID] = true
		b, ok := byID[c.ComponentID]
		switch {
		case !ok:
			ds = append(ds, Disagreement{Kind: DisagreeComponent, Component: c.ComponentID, CallbackAmount: c.AmountPaid})
		case c.AmountPaid != b.AmountPaid:
			ds = append(ds, Disagreement{Kind: DisagreeAmount, Component: c.ComponentID, CallbackAmount: c.AmountPaid, ServiceAmount: b.AmountPaid})
		}
	}
	if !unverified {
		for _, b := range payment {
			if !named[b.ComponentID] {
				ds = append(ds, Disagreement{Kind: DisagreeOmitted, Component: b.ComponentID, ServiceAmount: b.AmountPaid})
			}
		}
	}
	if cb.Total != 0 && cb.Total != svc.Total && cb.Total != svc.Total+cb.AdminFee {
		ds = append(ds, Disagreement{Kind: DisagreeTotal, CallbackAmount: cb.Total, ServiceAmount: svc.Total})
	}
	if !cb.PaidAt.IsZero() && !svc.PaidAt.IsZero() && (cb.PaidAt.Sub(svc.PaidAt) > dateSlack || svc.PaidAt.Sub(cb.PaidAt) > dateSlack) {
		ds = append(ds, Disagreement{Kind: DisagreeDate, CallbackTime: cb.PaidAt.UTC(), ServiceTime: svc.PaidAt.UTC()})
	}
	return ds
}

// StoredCallback is a payment callback as the ledger keeps it.
type StoredCallback struct {
	RefNumber string
	Merchant  string
	Status    CallbackStatus
	// Callback is what the (first) body says; Service what the service's records of the
	// reference say (zero until confirmed).
	Callback, Service PaymentFigures
	Applied           int // components the confirmation changed in the ledger
	Deliveries        int // how often the service (or anyone with its signature) sent it
	ReceivedAt        time.Time
	LastReceivedAt    time.Time
	ConfirmedAt       time.Time
	// Attempts is how often the service was asked; LastProblem why the last one did not
	// settle it (a Problem constant or ProblemUnknownRef).
	Attempts      int
	LastAttemptAt time.Time
	LastProblem   string
	Disagreements []Disagreement
	// OtherBodies counts resends of the reference with another body; OtherBody is what
	// the last of them said (nil when none, or when it no longer verifies).
	OtherBodies int
	OtherBodyAt time.Time
	OtherBody   *PaymentFigures
	Body        string // the first body, as received
}

const storedColumns = `ref_number, merchant, status, bill_key, bill_name, paid_us, total, components, applied, deliveries,
	received_at, last_received_at, confirmed_at, attempts, last_attempt_at, last_problem, service_bill_key, service_bill_name,
	service_total, service_paid_us, service_components, disagreements, other_bodies, other_body_at, other_body, signature, body`

func (l *Ledger) scanStored(rows *sql.Rows) (StoredCallback, error) {
	var c StoredCallback
	var status, disagreements, otherBody, sig string
	var paid, svcPaid sql.NullInt64
	var total, comps, applied, deliveries, attempts, svcTotal, svcComps, others int64
	var recv, last, confirmed, lastAttempt, otherAt nullTime
	if err := rows.Scan(&c.RefNumber, &c.Merchant, &status, &c.Callback.NIS, &c.Callback.StudentName, &paid, &total, &comps, &applied,
		&deliveries, &recv, &last, &confirmed, &attempts, &lastAttempt, &c.LastProblem, &c.Service.NIS, &c.Service.StudentName,
		&svcTotal, &svcPaid, &svcComps, &disagreements, &others, &otherAt, &otherBody, &sig, &c.Body); err != nil {
		return c, fmt.Errorf("ledger: callbacks: %w", err)
	}
	c.Status = CallbackStatus(status)
	c.Callback.PaidAt, c.Callback.Total, c.Callback.Components = instant(paid.Int64), total, int(comps)
	c.Service.PaidAt, c.Service.Total, c.Service.Components = instant(svcPaid.Int64), svcTotal, int(svcComps)
	c.Applied, c.Deliveries, c.Attempts, c.OtherBodies = int(applied), int(deliveries), int(attempts), int(others)
	c.ReceivedAt, c.LastReceivedAt, c.ConfirmedAt, c.LastAttemptAt, c.OtherBodyAt = recv.t, last.t, confirmed.t, lastAttempt.t, otherAt.t
	if disagreements != "" {
		if err := json.Unmarshal([]byte(disagreements), &c.Disagreements); err != nil {
			return c, fmt.Errorf("ledger: callback %s: its disagreements: %w", c.RefNumber, err)
		}
	}
	if others > 0 && otherBody != "" && l.verify != nil {
		if o, err := l.verify(sig, []byte(otherBody)); err == nil {
			c.OtherBody = &PaymentFigures{NIS: o.NIS, StudentName: o.StudentName, Total: o.Total, PaidAt: o.PaidAt, Components: len(o.Components)}
		}
	}
	return c, nil
}

// listStored runs a query of stored callbacks (storedColumns) and names the components
// their disagreements are about, as the ledger knows them.
func (l *Ledger) listStored(ctx context.Context, query string, args ...any) ([]StoredCallback, error) {
	rows, err := l.sql.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("ledger: callbacks: %w", err)
	}
	var out []StoredCallback
	for rows.Next() {
		c, err := l.scanStored(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("ledger: callbacks: %w", err)
	}
	var ids []string
	for _, c := range out {
		for _, d := range c.Disagreements {
			if d.Component != "" {
				ids = append(ids, d.Component)
			}
		}
	}
	if len(ids) == 0 {
		return out, nil
	}
	known, err := loadRows(ctx, l.sql, ids)
	if err != nil {
		return nil, err
	}
	for i := range out {
		for j, d := range out[i].Disagreements {
			if r, ok := known[d.Component]; ok {
				out[i].Disagreements[j].ComponentName, out[i].Disagreements[j].ComponentNIS = r.Name, r.NIS
			}
		}
	}
	return out, nil
}

// Callbacks lists the stored callbacks, newest first (at most limit; 0: 50).
func (l *Ledger) Callbacks(ctx context.Context, limit int) ([]StoredCallback, error) {
	if limit <= 0 {
		limit = 50
	}
	return l.listStored(ctx, `SELECT `+storedColumns+` FROM ledger_callbacks ORDER BY received_at DESC, ref_number LIMIT $1`, limit)
}

// FlaggedCallbacks lists the callbacks the admins should look at, newest first (at most
// limit; 0: 20): those that disagreed with the service, and those whose reference came
// again with another body.
func (l *Ledger) FlaggedCallbacks(ctx context.Context, limit int) ([]StoredCallback, error) {
	if limit <= 0 {
		limit = 20
	}
	return l.listStored(ctx, `SELECT `+storedColumns+` FROM ledger_callbacks WHERE status = 'disputed' OR other_bodies > 0
		ORDER BY received_at DESC, ref_number LIMIT $1`, limit)
}

// Unconfirmed is what the dashboard says of the payments announced by callbacks that the
// service has not confirmed yet (they are in no figure until it does).
type Unconfirmed struct {
	Count int
	Total int64     // as the callbacks announce it
	Since time.Time // when the oldest of them arrived
}

// UnconfirmedPayments counts the callbacks waiting for the service's confirmation.
func (l *Ledger) UnconfirmedPayments(ctx context.Context) (Unconfirmed, error) {
	var n, total sql.NullInt64
	var since nullTime
	if err := l.sql.QueryRowContext(ctx, `SELECT COUNT(*), SUM(total), MIN(received_at) FROM ledger_callbacks WHERE status = $1`,
		string(CallbackUnconfirmed)).Scan(&n, &total, &since); err != nil {
		return Unconfirmed{}, fmt.Errorf("ledger: unconfirmed payments: %w", err)
	}
	return Unconfirmed{Count: int(n.Int64), Total: total.Int64, Since: since.t}, nil
}

// CallbackStats is what the data page says about the payment callbacks of the days
// since Since: how many arrived, when the last one did, how many wait for the service's
// confirmation (and why), how many disagreed with it, and how many payments the ledger
// holds for those days (a school whose parents pay at banks and which receives no
// callback at all has not given the operator its callback address, or the address does
// not reach the portal).
type CallbackStats struct {
	Since    time.Time
	Received int       // callbacks (ref_numbers) first received since Since
	Last     time.Time // the last callback ever received (zero: none)
	// Waiting callbacks are stored but not confirmed by the service yet: the oldest
	// arrived at WaitingSince; the service was last asked at LastAttempt, which did not
	// settle it for LastProblem (a Problem constant or ProblemUnknownRef; "" when never asked).
	Waiting      int
	WaitingSince time.Time
	LastAttempt  time.Time
	LastProblem  string
	// Disputed callbacks disagreed with the service (ever); OtherBodies came again with
	// another body (ever).
	Disputed    int
	OtherBodies int
	Payments    int // components paid on the days since Since, however the ledger learned of them
}

// CallbackStats counts the callbacks received since since (and the payments of those days).
func (l *Ledger) CallbackStats(ctx context.Context, since time.Time) (CallbackStats, error) {
	st := CallbackStats{Since: since}
	var received, waiting, disputed, others, payments sql.NullInt64
	var last, waitingSince, lastAttempt nullTime
	var problem sql.NullString
	err := l.read(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM ledger_callbacks WHERE received_at >= $1),
			(SELECT MAX(last_received_at) FROM ledger_callbacks),
			(SELECT COUNT(*) FROM ledger_callbacks WHERE status = 'unconfirmed'),
			(SELECT MIN(received_at) FROM ledger_callbacks WHERE status = 'unconfirmed'),
			(SELECT COUNT(*) FROM ledger_callbacks WHERE status = 'disputed'),
			(SELECT COUNT(*) FROM ledger_callbacks WHERE other_bodies > 0)`, store.Time(since)).Scan(
			&received, &last, &waiting, &waitingSince, &disputed, &others); err != nil {
			return err
		}
		if waiting.Int64 > 0 {
			err := tx.QueryRowContext(ctx, `SELECT last_attempt_at, last_problem FROM ledger_callbacks
				WHERE status = 'unconfirmed' AND last_attempt_at IS NOT NULL ORDER BY last_attempt_at DESC LIMIT 1`).Scan(&lastAttempt, &problem)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
		}
		return tx.QueryRowContext(ctx, `SELECT SUM(components) FROM ledger_paid_totals WHERE paid_day >= $1`,
			l.paidDay(micros(since))).Scan(&payments)
	})
	if err != nil {
		return CallbackStats{}, fmt.Errorf("ledger: callback stats: %w", err)
	}
	st.Received, st.Last, st.Payments = int(received.Int64), last.t, int(payments.Int64)
	st.Waiting, st.WaitingSince, st.LastAttempt, st.LastProblem = int(waiting.Int64), waitingSince.t, lastAttempt.t, problem.String
	st.Disputed, st.OtherBodies = int(disputed.Int64), int(others.Int64)
	return st, nil
}
