package counter

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sekolah/portal/internal/audit"
	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/changes"
	"github.com/sekolah/portal/internal/component"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/problem"
)

// "Perpanjang lalu terima": an expired component is still owed, but the service takes no
// payment for it until its expiry is moved past today. The counter does both in one
// confirmed step: the expiry extended through the correction steps (audited, recorded in
// the ledger once the service answers), then the payment taken as any other (Pay). When
// the extension succeeds and the payment fails, the person is told exactly that: the
// bill is payable now and unpaid; nothing of the payment is recorded.

// FieldUntil is the new expiry's field on the extension form.
const FieldUntil = "until"

// DefaultExtension is how far past today the form suggests the new expiry.
const DefaultExtension = 30 * 24 * time.Hour

// ActionExtendPay is the audit code of the counter's extend-then-pay step.
const ActionExtendPay = "payment.extend_pay"

var (
	keyUntil audit.Key = "until"
	// extendedUntil is the new expiry: "diperpanjang sampai 30 Des 2026" (a value that is
	// not a day, which the counter never writes, shown as it was recorded).
	extendedUntil = audit.NewFigure("until", []audit.Key{keyUntil}, func(p i18n.Printer, a audit.Args) string {
		v := a.Get(keyUntil)
		if v == "" {
			return ""
		}
		if d, err := time.Parse(time.DateOnly, v); err == nil {
			v = p.Day(d)
		}
		return p.T("payments.extend.audit_until", v)
	})
	auditExtendPay = audit.Register(audit.Action{Code: ActionExtendPay, About: audit.AboutStudent,
		Shows: []audit.Figure{audit.ItemName, extendedUntil, audit.Money, audit.Receipt}, Keeps: []audit.Key{audit.KeyComp},
		Needs: []audit.Key{audit.KeyNIS, audit.KeyItem, keyUntil, audit.KeyRef, audit.KeyTotal}})
)

// ExtendRequest is the extension form as typed.
type ExtendRequest struct {
	NIS, Ref string
	// ID is the expired component.
	ID string
	// Until is the new expiry as typed (2026-12-30 or 30/12/2026).
	Until    string
	ReuseRef bool
}

// Extension is an expired component checked for extending and paying today.
type Extension struct {
	Student
	Ref string
	// Line is the component as read now (expired).
	Line Line
	// Until is the new expiry day (UTC midnight); SuggestedUntil what the form offers.
	Until, SuggestedUntil time.Time
	// Amount, Penalty and Total are what paying costs once it is extended.
	Amount, Penalty, Total int64
	RefTaken               *RefUse
	// Paid is what the service recorded, once ExtendAndPay succeeded.
	Paid int64
}

// ExtendedNotPaid is the answer when the expiry was extended and the payment then failed:
// the component is payable now and unpaid; Err is the payment's error (a *PayError, a
// *TotalChanged, a *RefTakenError or a read failure).
type ExtendedNotPaid struct {
	Until time.Time
	Err   error
}

func (e *ExtendedNotPaid) Error() string {
	return "counter: expiry extended to " + e.Until.Format(time.DateOnly) + ", payment not recorded: " + e.Err.Error()
}

// Unwrap gives the payment's error.
func (e *ExtendedNotPaid) Unwrap() error { return e.Err }

// ExtendError is the service's refusal of the extension, or a failure to reach it:
// nothing was paid. When changes.Ambiguous(Err) the extension may have been applied.
type ExtendError struct{ Err error }

func (e *ExtendError) Error() string { return "counter: expiry not extended: " + e.Err.Error() }

// Unwrap gives the writer's error.
func (e *ExtendError) Unwrap() error { return e.Err }

// CheckExtension reads the student's components afresh and checks the request: the
// component still there, unpaid and expired (one that can be paid as it is is a problem
// saying so), a new expiry from today on, and a valid receipt number. Problems are a
// problem.List (fields component, until, ref); a failure to read is the billing error.
func (s *Service) CheckExtension(ctx context.Context, req ExtendRequest) (Extension, error) {
	st, err := s.Student(ctx, strings.TrimSpace(req.NIS))
	today := s.Clock.Day()
	var probs problem.List
	x := Extension{Student: st, Ref: ParseRef(&probs, req.Ref), SuggestedUntil: today.Add(DefaultExtension)}
	if err != nil {
		return x, err
	}
	id := strings.TrimSpace(req.ID)
	found := false
	for _, l := range st.Lines {
		if l.Bill.ComponentID == id {
			x.Line, found = l, true
		}
	}
	switch {
	case !found && paidIn(st.fresh, id) != nil:
		b := paidIn(st.fresh, id)
		probs = append(problem.List{problem.New(FieldComponent, "payments.err.paid", b.Name, b.RefNumber)}, probs...)
	case !found:
		probs = append(problem.List{problem.New(FieldComponent, "payments.err.gone")}, probs...)
	case x.Line.Payable:
		probs = append(problem.List{problem.New(FieldComponent, "payments.extend.err.payable", x.Line.Bill.Name)}, probs...)
	case x.Line.Reason != ReasonExpired:
		probs = append(problem.List{problem.New(FieldComponent, "payments.err.not_active", x.Line.Bill.Name)}, probs...)
	}
	if strings.TrimSpace(req.Until) == "" {
		x.Until = x.SuggestedUntil
	} else if x.Until = component.ParseDay(&probs, FieldUntil, req.Until, true); !x.Until.IsZero() && x.Until.Before(today) {
		probs.Add(FieldUntil, "payments.extend.err.until_past", today)
	}
	if found {
		// What paying costs once the expiry is past today: the amount, and the late fee
		// when its due day is past (as it is for any bill paid late).
		b := x.Line.Bill
		b.State, b.Expiry = billing.StateProvisioned, maxDay(x.Until, today)
		on := component.On(b, st.Today)
		x.Amount, x.Penalty, x.Total = b.Amount, on.Penalty, on.Price
	}
	if len(probs) == 0 && RefUsed(st.fresh, x.Ref) {
		probs.Add(FieldRef, "payments.err.ref_used")
	}
	if len(probs) > 0 {
		return x, probs
	}
	x.RefTaken = s.refUsedElsewhere(ctx, x.NIS, x.Ref)
	return x, nil
}

func maxDay(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func paidIn(fresh []billing.Bill, id string) *billing.Bill {
	for i := range fresh {
		if fresh[i].ComponentID == id && fresh[i].State == billing.StatePaid {
			return &fresh[i]
		}
	}
	return nil
}

// ExtendAndPay extends the expired component's expiry to the day asked and takes its
// payment, in one step the person confirmed at total confirmed (another total today is
// *TotalChanged, nothing done). The extension goes through the correction steps; the
// payment through Pay, which checks it once more against the service.
//
// Errors: those of CheckExtension; *TotalChanged and *RefTakenError before anything is
// sent; *ExtendError when the extension failed (nothing paid); *ExtendedNotPaid when the
// extension succeeded and the payment did not. Every outcome is in the audit log, once
// for the step (ActionExtendPay) besides the writer's entries for each call.
func (s *Service) ExtendAndPay(ctx context.Context, actor auth.Actor, req ExtendRequest, confirmed int64) (Extension, error) {
	if s.Steps == nil {
		return Extension{}, errors.New("counter: no correction steps to extend with")
	}
	x, err := s.CheckExtension(ctx, req)
	if err != nil {
		return x, err
	}
	if confirmed != x.Total {
		return x, &TotalChanged{Total: x.Total}
	}
	if x.RefTaken != nil && !req.ReuseRef {
		return x, &RefTakenError{Use: *x.RefTaken}
	}
	until := x.Until
	id := x.Line.Bill.ComponentID
	entry := func(outcome audit.Outcome, paid int64, detail string) {
		e := auditExtendPay.With(audit.Student(x.NIS, x.Name), audit.Item(x.Line.Bill.Name), audit.ArgOf(keyUntil, until.Format(time.DateOnly)),
			audit.Ref(x.Ref), audit.Total(paid), audit.Component(id))
		e.Actor, e.Outcome, e.Target, e.Detail = actor.Audit(), outcome, x.NIS, detail
		if err := (audit.Log{DB: s.DB, Clock: s.Clock}).Record(context.WithoutCancel(ctx), e); err != nil {
			s.logger().Error("counter: audit the extension and payment", "nis", x.NIS, "component", id, "err", err)
		}
	}
	if err := s.Steps.UpdateComponent(ctx, actor, id, billing.ComponentUpdate{Expiry: &until}, "counter: extend then pay, ref "+x.Ref); err != nil {
		outcome := audit.Failed
		if changes.Ambiguous(err) {
			outcome = audit.Unknown
		}
		entry(outcome, x.Total, "extension failed: "+err.Error())
		return x, &ExtendError{Err: err}
	}
	p, err := s.Pay(ctx, actor, Request{NIS: x.NIS, Ref: x.Ref, IDs: []string{id}, ReuseRef: true}, x.Total)
	if err != nil {
		outcome := audit.Failed
		var pe *PayError
		if errors.As(err, &pe) && changes.Ambiguous(pe.Err) {
			outcome = audit.Unknown
		}
		entry(outcome, x.Total, fmt.Sprintf("extended to %s; payment failed: %v", until.Format(time.DateOnly), err))
		return x, &ExtendedNotPaid{Until: until, Err: err}
	}
	x.Paid = p.Paid
	entry(audit.OK, p.Paid, "extended to "+until.Format(time.DateOnly))
	return x, nil
}
