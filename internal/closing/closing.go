// Package closing is a cashier's closing of the day (tutup kas): the counter payments a
// cashier took on one school day (read from the ledger: the service's payments, whose
// channel row names the cashier), the cash they should hold, the cash they counted, and
// why the two differ; signed off by the cashier and then locked. A locked day refuses a
// second closing and the cashier's further counter payments (internal/counter asks
// Locked); an admin may reopen it with a reason, and the cashier then closes it again.
// Every closing, refusal and reopening is audited. The receipts a closing counted are
// kept with it, so its berita acara prints the same whatever comes later; a counter
// payment of the day that reaches the ledger after the sign-off (its answer was late) is
// shown beside the locked closing, never silently added to it.
package closing

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/sekolah/portal/internal/audit"
	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/internal/store"
)

// The closing form's fields, as problem fields.
const (
	FieldCounted = "counted"
	FieldReason  = "reason"
)

// MaxReasonLen is the longest reason (of a difference, or of a reopening), in characters.
const MaxReasonLen = 500

// DefaultInFlight is how long a counter payment sent without an answer holds its
// cashier's closing: well past the client's whole deadline, after which the answer is
// lost and the payment is only listed as uncertain.
const DefaultInFlight = 2 * time.Minute

// Errors of closing and reopening.
var (
	// ErrNotFound: no such closing.
	ErrNotFound = errors.New("closing: no such closing")
	// ErrFuture: a day after today cannot be read or closed.
	ErrFuture = errors.New("closing: the day has not come yet")
	// ErrNotLocked: the closing was reopened already.
	ErrNotLocked = errors.New("closing: the closing is not locked")
	// ErrNotAdmin: only an admin reopens a closing.
	ErrNotAdmin = errors.New("closing: only an admin reopens a closing")
)

// LockedError answers a second closing of a cashier's day: Closing is the locked one.
type LockedError struct{ Closing Closing }

func (e *LockedError) Error() string {
	return "closing: the cash of " + e.Closing.Cashier + " on " + e.Closing.Day.Format(time.DateOnly) + " is already closed"
}

// ChangedError answers a sign-off of figures the day no longer has: a receipt came in
// (or one the form showed is gone) since the form was shown. Drawer is the day now.
type ChangedError struct{ Drawer Drawer }

func (e *ChangedError) Error() string {
	return "closing: the receipts changed since the form was shown"
}

// PendingError answers a sign-off while a counter payment of the cashier is still on its
// way: sent moments ago without an answer yet, or answered and not in the ledger yet.
type PendingError struct{ Payments []Attempt }

func (e *PendingError) Error() string {
	return fmt.Sprintf("closing: %d counter payments are still on their way", len(e.Payments))
}

// Receipt is one counter payment as a closing counts it.
type Receipt struct {
	NIS, Name, Class, Ref string
	PaidAt                time.Time
	Components            int
	Amount                int64 // what the parent paid, penalties included
}

// Attempt is a counter payment of the day the ledger does not hold as paid: sent without
// an answer (Answered false: the service may or may not have it), or answered and not
// read into the ledger yet.
type Attempt struct {
	NIS, Name, Ref string
	At             time.Time
	Answered       bool
	// Waiting: it still holds the closing (answered, or sent moments ago).
	Waiting bool
}

// Closing is one cashier's closing of one day.
type Closing struct {
	ID          string
	Day         time.Time // the school's date, at UTC midnight
	Cashier     string    // username
	CashierName string
	Payments    int
	Components  int
	Expected    int64
	Counted     int64
	Reason      string
	Locked      bool
	SignedAt    time.Time
	// An admin's reopening (zero while locked).
	ReopenedAt                             time.Time
	ReopenedBy, ReopenedName, ReopenReason string
	// Receipts are those the closing counted, as they were at the sign-off (Closing only).
	Receipts []Receipt
}

// Difference is the cash counted less the cash expected: negative is short, positive over.
func (c Closing) Difference() int64 { return c.Counted - c.Expected }

// Drawer is one cashier's cash of one day: the receipts the ledger holds now, what they
// add up to, the locked closing (if any), earlier closings reopened since, the payments
// still on their way, and the receipts that came after the locked closing was signed.
type Drawer struct {
	Cashier, CashierName string
	Receipts             []Receipt
	Payments, Components int
	Expected             int64
	Closing              *Closing
	Reopened             []Closing
	Attempts             []Attempt
	// Late are receipts of the day not in the locked closing (their answer reached the
	// ledger after the sign-off); LateTotal their sum.
	Late      []Receipt
	LateTotal int64
}

// Waiting reports whether a payment of the cashier still holds their closing.
func (d Drawer) Waiting() bool {
	return slices.ContainsFunc(d.Attempts, func(a Attempt) bool { return a.Waiting })
}

// Day is every cashier's cash of one school day.
type Day struct {
	Day   time.Time
	Today bool
	// Drawers are the cashiers with a receipt, a closing or a payment on its way that day,
	// by name.
	Drawers []Drawer
	// Payments and Expected add up every drawer's receipts; Counted the locked closings'.
	Payments int
	Expected int64
	Counted  int64
	Closed   int // cashiers whose day is locked
}

// Drawer is cashier's drawer of the day (an empty one when they took nothing).
func (d Day) Drawer(cashier string) Drawer {
	for _, dr := range d.Drawers {
		if dr.Cashier == cashier {
			return dr
		}
	}
	return Drawer{Cashier: cashier}
}

// Service reads and closes the cashiers' days; internal/app builds it.
type Service struct {
	DB     *store.DB
	Ledger *ledger.Ledger
	// Clock is the portal's clock: today is the school's date.
	Clock clock.Clock
	Log   *slog.Logger
	// InFlight is how long a payment sent without an answer holds its cashier's closing
	// (default DefaultInFlight).
	InFlight time.Duration
}

func (s *Service) logger() *slog.Logger { return cmp.Or(s.Log, slog.Default()) }

// Today is the school's date today, at UTC midnight.
func (s *Service) Today() time.Time { return s.Clock.Day() }

// Day reads every cashier's cash of day (a school date at UTC midnight; not after today).
func (s *Service) Day(ctx context.Context, day time.Time) (Day, error) {
	today := s.Today()
	if day.After(today) {
		return Day{}, ErrFuture
	}
	out := Day{Day: day, Today: day.Equal(today)}
	receipts, err := s.Ledger.CounterReceipts(ctx, day)
	if err != nil {
		return Day{}, fmt.Errorf("closing: %w", err)
	}
	attempts, err := s.Ledger.CounterAttempts(ctx, day)
	if err != nil {
		return Day{}, fmt.Errorf("closing: %w", err)
	}
	closings, err := s.DB.CashClosingsOn(ctx, day)
	if err != nil {
		return Day{}, fmt.Errorf("closing: %w", err)
	}
	drawers := map[string]*Drawer{}
	drawer := func(cashier, name string) *Drawer {
		d := drawers[cashier]
		if d == nil {
			d = &Drawer{Cashier: cashier}
			drawers[cashier] = d
		}
		if name != "" {
			d.CashierName = name
		}
		return d
	}
	for _, r := range receipts {
		d := drawer(r.Cashier, r.CashierName)
		d.Receipts = append(d.Receipts, Receipt{NIS: r.NIS, Name: r.Name, Class: r.Class, Ref: r.Ref, PaidAt: r.PaidAt,
			Components: r.Components, Amount: r.Amount})
		d.Payments++
		d.Components += r.Components
		d.Expected += r.Amount
	}
	inFlight := cmp.Or(s.InFlight, DefaultInFlight)
	now := s.Clock.Now()
	for _, a := range attempts {
		d := drawer(a.Cashier, a.CashierName)
		d.Attempts = append(d.Attempts, Attempt{NIS: a.NIS, Name: a.Name, Ref: a.Ref, At: a.At, Answered: a.Answered,
			Waiting: a.Answered || now.Sub(a.At) < inFlight})
	}
	for _, sc := range closings {
		c := closingOf(sc)
		d := drawer(c.Cashier, "")
		if d.CashierName == "" {
			d.CashierName = c.CashierName
		}
		if !c.Locked {
			d.Reopened = append(d.Reopened, c)
			continue
		}
		_, counted, err := s.DB.CashClosing(ctx, c.ID)
		if err != nil {
			return Day{}, fmt.Errorf("closing: %w", err)
		}
		for _, r := range counted {
			c.Receipts = append(c.Receipts, receiptOf(r))
		}
		d.Closing = &c
	}
	for _, d := range drawers {
		d.CashierName = cmp.Or(d.CashierName, d.Cashier)
		if d.Closing != nil {
			in := map[string]bool{}
			for _, r := range d.Closing.Receipts {
				in[r.NIS+"\x00"+r.Ref] = true
			}
			for _, r := range d.Receipts {
				if !in[r.NIS+"\x00"+r.Ref] {
					d.Late = append(d.Late, r)
					d.LateTotal += r.Amount
				}
			}
			out.Counted += d.Closing.Counted
			out.Closed++
		}
		out.Payments += d.Payments
		out.Expected += d.Expected
		out.Drawers = append(out.Drawers, *d)
	}
	slices.SortFunc(out.Drawers, func(a, b Drawer) int {
		return cmp.Or(strings.Compare(strings.ToLower(a.CashierName), strings.ToLower(b.CashierName)), strings.Compare(a.Cashier, b.Cashier))
	})
	return out, nil
}

func closingOf(c store.CashClosing) Closing {
	return Closing{ID: c.ID, Day: c.Day, Cashier: c.Cashier, CashierName: cmp.Or(c.CashierName, c.Cashier), Payments: c.Payments,
		Components: c.Components, Expected: c.Expected, Counted: c.Counted, Reason: c.Reason, Locked: c.State == store.ClosingLocked,
		SignedAt: c.SignedAt, ReopenedAt: c.ReopenedAt, ReopenedBy: c.ReopenedBy, ReopenedName: cmp.Or(c.ReopenedName, c.ReopenedBy),
		ReopenReason: c.ReopenReason}
}

func receiptOf(r store.ClosingReceipt) Receipt {
	return Receipt{NIS: r.NIS, Name: r.StudentName, Class: r.Class, Ref: r.Ref, PaidAt: r.PaidAt, Components: r.Components, Amount: r.Amount}
}

// Closing is closing id with the receipts it counted; ErrNotFound when there is none.
func (s *Service) Closing(ctx context.Context, id string) (Closing, error) {
	sc, rs, err := s.DB.CashClosing(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return Closing{}, ErrNotFound
	}
	if err != nil {
		return Closing{}, fmt.Errorf("closing: %w", err)
	}
	c := closingOf(sc)
	for _, r := range rs {
		c.Receipts = append(c.Receipts, receiptOf(r))
	}
	return c, nil
}

// Locked reports whether cashier (a username) has closed today's cash and it is locked:
// the counter then refuses their payments.
func (s *Service) Locked(ctx context.Context, cashier string) (bool, error) {
	_, err := s.DB.LockedCashClosing(ctx, s.Today(), cashier)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("closing: %w", err)
	}
	return true, nil
}

// Form is a closing as the cashier signs it: the day, the cash counted as typed, why it
// differs, and the receipts and total the form showed (the sign-off is of those figures).
type Form struct {
	Day      time.Time
	Counted  string
	Reason   string
	Payments int
	Expected int64
}

// Check reads the form's cash and reason against what the receipts add up to: the cash
// is whole rupiah as people type them (i18n.ParseRupiah: "1.250.000", "Rp 1.250.000,-"),
// not negative; a reason is required when the cash differs from expected, and at most
// MaxReasonLen characters.
func Check(f Form, expected int64) (counted int64, reason string, probs problem.List) {
	reason = strings.TrimSpace(f.Reason)
	text := strings.TrimSpace(f.Counted)
	switch v, err := i18n.ParseRupiah(text); {
	case text == "":
		probs.Add(FieldCounted, "form.required")
	case errors.Is(err, i18n.ErrFraction):
		probs.Add(FieldCounted, "closing.err.counted_fraction")
	case errors.Is(err, i18n.ErrTooLarge):
		probs.Add(FieldCounted, "closing.err.counted_large")
	case err != nil:
		probs.Add(FieldCounted, "closing.err.counted_number")
	case v < 0:
		probs.Add(FieldCounted, "closing.err.counted_negative")
	default:
		counted = v
	}
	if n := len([]rune(reason)); n > MaxReasonLen {
		probs.Add(FieldReason, "form.too_long", MaxReasonLen)
	} else if !probs.Has(FieldCounted) && counted != expected && reason == "" {
		probs.Add(FieldReason, "closing.err.reason_required", i18n.Rupiah(abs(counted-expected)))
	}
	return counted, reason, probs
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// Close signs off actor's cash of f.Day and locks it: the receipts the ledger holds now
// (they must be those the form showed), the cash counted and the reason of a difference,
// with the receipts kept and the closing audited in one transaction. Errors: a
// problem.List (the cash, the reason); *ChangedError (the receipts changed since the form
// was shown); *PendingError (a payment still on its way); *LockedError (the day is closed
// already: audited as refused); ErrFuture.
func (s *Service) Close(ctx context.Context, actor auth.Actor, f Form) (Closing, error) {
	day, err := s.Day(ctx, f.Day)
	if err != nil {
		return Closing{}, err
	}
	d := day.Drawer(actor.Username)
	if d.Closing != nil {
		s.record(ctx, actor, auditClose.With(audit.StaffMember(actor.Username), dayArg(f.Day)), audit.Denied, d.Closing.ID)
		return Closing{}, &LockedError{Closing: *d.Closing}
	}
	counted, reason, probs := Check(f, d.Expected)
	if len(probs) > 0 {
		return Closing{}, probs
	}
	if d.Payments != f.Payments || d.Expected != f.Expected {
		return Closing{}, &ChangedError{Drawer: d}
	}
	if d.Waiting() {
		var waiting []Attempt
		for _, a := range d.Attempts {
			if a.Waiting {
				waiting = append(waiting, a)
			}
		}
		return Closing{}, &PendingError{Payments: waiting}
	}
	name := s.displayName(ctx, actor.Username)
	c := store.CashClosing{Day: f.Day, Cashier: actor.Username, CashierName: name, Payments: d.Payments, Components: d.Components,
		Expected: d.Expected, Counted: counted, Reason: reason, SignedAt: s.Clock.Now()}
	receipts := make([]store.ClosingReceipt, len(d.Receipts))
	for i, r := range d.Receipts {
		receipts[i] = store.ClosingReceipt{NIS: r.NIS, StudentName: r.Name, Class: r.Class, Ref: r.Ref, PaidAt: r.PaidAt,
			Components: r.Components, Amount: r.Amount}
	}
	c.ID = store.NewID()
	e := auditClose.With(audit.StaffMember(actor.Username), dayArg(f.Day), audit.ArgOf(audit.KeyCount, fmt.Sprint(d.Payments)),
		audit.Total(d.Expected), audit.ArgOf(keyCounted, fmt.Sprint(counted)), audit.Reason(reason))
	e.Actor, e.Outcome, e.Target, e.Detail = auditActor(actor), audit.OK, actor.Username, "closing "+c.ID
	saved, err := s.DB.CloseCash(ctx, c, receipts, e.Row())
	if errors.Is(err, store.ErrClosingLocked) {
		// Signed at the same moment in another tab: the other one locked the day.
		locked, lerr := s.DB.LockedCashClosing(ctx, f.Day, actor.Username)
		if lerr != nil {
			return Closing{}, fmt.Errorf("closing: %w", lerr)
		}
		s.record(ctx, actor, auditClose.With(audit.StaffMember(actor.Username), dayArg(f.Day)), audit.Denied, locked.ID)
		return Closing{}, &LockedError{Closing: closingOf(locked)}
	}
	if err != nil {
		return Closing{}, fmt.Errorf("closing: %w", err)
	}
	out := closingOf(saved)
	for _, r := range receipts {
		out.Receipts = append(out.Receipts, receiptOf(r))
	}
	return out, nil
}

// Reopen unlocks closing id for an admin, with the reason (required, at most
// MaxReasonLen characters; a problem.List otherwise), audited; the cashier may then take
// payments again and close the day anew. Errors: ErrNotAdmin, ErrNotFound, ErrNotLocked.
func (s *Service) Reopen(ctx context.Context, actor auth.Actor, id, reason string) (Closing, error) {
	c, err := s.Closing(ctx, id)
	if err != nil {
		return Closing{}, err
	}
	e := auditReopen.With(audit.StaffMember(c.Cashier), dayArg(c.Day), audit.Reason(strings.TrimSpace(reason)))
	if actor.Role != auth.Admin {
		s.record(ctx, actor, e, audit.Denied, id)
		return Closing{}, ErrNotAdmin
	}
	reason = strings.TrimSpace(reason)
	var probs problem.List
	switch n := len([]rune(reason)); {
	case n == 0:
		probs.Add(FieldReason, "closing.err.reopen_reason")
	case n > MaxReasonLen:
		probs.Add(FieldReason, "form.too_long", MaxReasonLen)
	}
	if len(probs) > 0 {
		return c, probs
	}
	if !c.Locked {
		return c, ErrNotLocked
	}
	e.Actor, e.Outcome, e.Target, e.Detail = auditActor(actor), audit.OK, c.Cashier, "closing "+id
	at := s.Clock.Now()
	err = s.DB.ReopenCash(ctx, id, actor.Username, s.displayName(ctx, actor.Username), reason, at, e.Row())
	switch {
	case errors.Is(err, store.ErrNotFound):
		return c, ErrNotLocked
	case err != nil:
		return c, fmt.Errorf("closing: %w", err)
	}
	return s.Closing(ctx, id)
}

// displayName is how the berita acara names username: their display name, else the
// username.
func (s *Service) displayName(ctx context.Context, username string) string {
	u, err := s.DB.UserByUsername(ctx, username)
	if err != nil {
		if !errors.Is(err, store.ErrNotFound) {
			s.logger().Warn("closing: read a member of staff's name", "user", username, "err", err)
		}
		return username
	}
	return cmp.Or(u.DisplayName, username)
}

func auditActor(a auth.Actor) audit.Actor {
	return audit.Actor{Username: a.Username, Role: string(a.Role), IP: a.IP}
}

// record writes an entry of a refusal (the success is written with its change).
func (s *Service) record(ctx context.Context, actor auth.Actor, e audit.Entry, o audit.Outcome, id string) {
	e.Actor, e.Outcome, e.Target, e.Detail = auditActor(actor), o, e.Args.Get(audit.KeyUser), "closing "+id
	if err := (audit.Log{DB: s.DB, Clock: s.Clock}).Record(context.WithoutCancel(ctx), e); err != nil {
		s.logger().Error("closing: audit a refusal", "err", err)
	}
}
