// Package counter is paying at the school's counter: the student's unpaid components
// priced as of today, checking a choice against the service's components read just
// before (Check), recording the payment through the audited writer (Pay), and the
// receipt read back from the service. It has no HTTP in it; web/ renders its answers.
package counter

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"time"

	"github.com/sekolah/portal/internal/audit"
	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/changes"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/corrections"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/internal/school"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/students"
)

// The counter form's fields, as problem fields.
const (
	FieldNIS = "nis"
	FieldRef = "ref"
	// FieldComponent is the chosen components.
	FieldComponent = "component"
)

// MaxRefLen is the longest reference number a new payment may carry.
const MaxRefLen = 40

// refRE is the charset of reference (receipt) numbers: what banks and receipt books print,
// safe in a URL and unambiguous when read out at the counter.
var refRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9./_-]*$`)

// ParseRef trims a reference number and checks it into l: required, at most MaxRefLen
// characters of letters, digits and . / _ - (starting with a letter or digit).
func ParseRef(l *problem.List, s string) string {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		l.Add(FieldRef, "form.required")
	case len(s) > MaxRefLen:
		l.Add(FieldRef, "form.too_long", MaxRefLen)
	case !refRE.MatchString(s):
		l.Add(FieldRef, "payments.err.ref_chars")
	}
	return s
}

// Service is the counter: built once by cmd/portal.
type Service struct {
	Billing *billing.Client
	// Writer records the payments (audited).
	Writer *changes.Writer
	// Steps extend an expired component's expiry before its payment (ExtendAndPay): the
	// correction steps every change of what exists goes through.
	Steps *corrections.Steps
	// DB is the roster (searching students, their class) and the audit log (who recorded
	// a payment).
	DB *store.DB
	// School numbers the receipts; nil: no suggestions.
	School *school.Service
	// Log receives what the counter cannot tell the person (a receipt number not noted).
	Log *slog.Logger
	// Clock is the portal's clock: "today" of the day rule is the school's date. The zero
	// Clock refuses to be read.
	Clock clock.Clock
	// Paid, when set, hears of each payment recorded (the outbox writes the parents'
	// receipt, issue 28); it must not fail the payment.
	Paid func(ctx context.Context, p Payment)
	// Channels keeps who took each payment at the counter (the ledger's record of the
	// payment's channel and cashier); nil keeps nothing.
	Channels Channels
	// Closed says whether a cashier (a username) has closed today's cash and it is locked
	// (internal/closing): their payments are then refused. nil: never.
	Closed func(ctx context.Context, cashier string) (bool, error)
}

// Channels records a counter payment's channel and cashier beside the ledger: before the
// payment is sent, once the service answered, and when it refused
// (internal/ledger/channel.go).
type Channels interface {
	CounterSending(ctx context.Context, nis, ref, cashier, cashierName string) error
	CounterRecorded(ctx context.Context, nis, ref string) error
	CounterNotSent(ctx context.Context, nis, ref string) error
}

// Today is now in the school's zone, the day the prices are for (clock.Clock.Today).
func (s *Service) Today() time.Time { return s.Clock.Today() }

// Student is one student at the counter: their unpaid components as just read from the
// service, priced as of Today.
type Student struct {
	NIS string
	// Name is the student's name as the service has it on their components.
	Name         string
	Today        time.Time
	Lines        []Line
	PayableTotal int64
	fresh        []billing.Bill
}

// Found reports whether the student's components were read.
func (st Student) Found() bool { return st.fresh != nil }

// Student reads the student's components from the service. An invalid NIS is a
// problem.List; billing.ErrNotFound means the service has no such student.
func (s *Service) Student(ctx context.Context, nis string) (Student, error) {
	var l problem.List
	if !students.CheckNIS(&l, FieldNIS, nis) {
		return Student{NIS: nis, Today: s.Today()}, l
	}
	st := Student{NIS: nis, Today: s.Today(), fresh: []billing.Bill{}}
	for b, err := range s.Billing.AllForStudent(ctx, nis, billing.Query{}) {
		if err != nil {
			return Student{NIS: nis, Today: st.Today}, fmt.Errorf("counter: components of %s: %w", nis, err)
		}
		st.fresh = append(st.fresh, b)
		if st.Name == "" {
			st.Name = b.StudentName
		}
	}
	st.Lines = Outstanding(st.fresh, st.Today)
	st.PayableTotal = PayableTotal(st.Lines)
	return st, nil
}

// Request is a payment as the counter form asks for it.
type Request struct {
	NIS string
	Ref string
	// IDs are the chosen components.
	IDs []string
	// ReuseRef: the person saw that another student's payment carries Ref and wants this
	// one under the same number all the same.
	ReuseRef bool
}

// RefUse is another student's payment under the same receipt number.
type RefUse struct {
	NIS, Name string
	PaidAt    time.Time
	Total     int64
}

// Payment is a counter payment checked against the student's components read just now.
type Payment struct {
	Student
	Ref string
	// Chosen is what will be paid, priced as of today.
	Chosen Selection
	// Paid is what the service recorded as paid, once Pay succeeded.
	Paid int64
	// RefTaken is another student's payment already under Ref: the person is warned
	// before the payment is sent (a receipt number names one payment).
	RefTaken *RefUse
}

// Check reads the student's components afresh and checks the request against them: a
// valid reference not used before for this student, and every chosen component still
// there, unpaid, not expired and active. Problems are a problem.List (fields nis, ref,
// component); a failure to read is the billing error (ErrNotFound: no such student). The
// Payment carries the student as read whenever that worked, so a form can show the
// fresh list beside the problems.
func (s *Service) Check(ctx context.Context, req Request) (Payment, error) {
	st, err := s.Student(ctx, strings.TrimSpace(req.NIS))
	var refProbs problem.List
	p := Payment{Student: st, Ref: ParseRef(&refProbs, req.Ref)}
	if err != nil {
		return p, err
	}
	sel, probs := Select(st.fresh, req.IDs, st.Today)
	switch {
	case len(refProbs) > 0:
		probs = append(refProbs, probs...)
	case RefUsed(st.fresh, p.Ref):
		probs = append(problem.List{problem.New(FieldRef, "payments.err.ref_used")}, probs...)
	}
	if len(probs) > 0 {
		return p, probs
	}
	p.Chosen = sel
	p.RefTaken = s.refUsedElsewhere(ctx, p.NIS, p.Ref)
	return p, nil
}

// refUsedElsewhere asks the service for payments under ref (a search with the ref_number
// filter) and returns another student's, if any. When the service cannot answer, there
// is no warning: the payment itself goes to the same service and fails the same way.
func (s *Service) refUsedElsewhere(ctx context.Context, nis, ref string) *RefUse {
	found, err := s.Billing.Search(ctx, billing.Query{RefNumber: ref, State: billing.StatePaid, Limit: 20})
	if err != nil {
		s.logger().Warn("counter: look for earlier payments under a receipt number", "ref", ref, "err", err)
		return nil
	}
	var use *RefUse
	for _, b := range found {
		if b.State != billing.StatePaid || !strings.EqualFold(b.RefNumber, ref) || b.NIS == nis {
			continue
		}
		if use == nil {
			use = &RefUse{NIS: b.NIS, Name: b.StudentName, PaidAt: b.PaidAt}
		}
		if b.NIS == use.NIS {
			use.Total += b.AmountPaid
		}
	}
	return use
}

func (s *Service) logger() *slog.Logger {
	if s.Log != nil {
		return s.Log
	}
	return slog.Default()
}

// RefTakenError answers a payment whose receipt number another student's payment
// already carries, when the person has not said to use it again. Nothing was paid.
type RefTakenError struct{ Use RefUse }

func (e *RefTakenError) Error() string {
	return "counter: the receipt number is already used for the payment of " + e.Use.NIS
}

// TotalChanged is the answer to a payment confirmed at another total than today's:
// midnight passed and a penalty now applies, or the form was not the confirmation.
// Nothing was paid.
type TotalChanged struct{ Total int64 }

func (e *TotalChanged) Error() string {
	return fmt.Sprintf("counter: the total is now %d, not the one confirmed", e.Total)
}

// PayError is the service's refusal of a payment that passed the counter's checks, or a
// failure to reach it. Problems words the refusal per component when the service named
// them. When changes.Ambiguous(Err), the payment may have been recorded: the person must
// check before trying again.
type PayError struct {
	Err      error
	Problems problem.List
}

func (e *PayError) Error() string { return "counter: payment not recorded: " + e.Err.Error() }

// Unwrap gives the writer's error.
func (e *PayError) Unwrap() error { return e.Err }

// Pay checks the request once more against the service (so the same page cannot pay
// twice) and records it with the writer, which audits it. confirmed is the total the
// person confirmed; another total today is *TotalChanged.
//
// Errors: those of Check; *TotalChanged; or *PayError.
func (s *Service) Pay(ctx context.Context, actor auth.Actor, req Request, confirmed int64) (Payment, error) {
	p, err := s.Check(ctx, req)
	if err != nil {
		return p, err
	}
	if confirmed != p.Chosen.Total {
		return p, &TotalChanged{Total: p.Chosen.Total}
	}
	if p.RefTaken != nil && !req.ReuseRef {
		return p, &RefTakenError{Use: *p.RefTaken}
	}
	if err := s.open(ctx, actor); err != nil {
		return p, err
	}
	if err := s.sending(ctx, actor, p); err != nil {
		return p, err
	}
	paid, err := s.Writer.Pay(ctx, actor, billing.Payment{NIS: p.NIS, RefNumber: p.Ref, ComponentIDs: p.Chosen.IDs})
	s.answered(ctx, p, err)
	if err != nil {
		pe := &PayError{Err: err}
		pe.Problems, _ = PayProblems(err, p.Chosen.IDs, p.fresh)
		return p, pe
	}
	for _, b := range paid {
		p.Paid += b.AmountPaid
	}
	if len(paid) == 0 {
		p.Paid = p.Chosen.Total
	}
	if s.School != nil {
		// The payment is recorded; a number the sequence did not note only means the same
		// number may be suggested again, and the counter then warns that it is used.
		if err := s.School.ReceiptUsed(context.WithoutCancel(ctx), p.Ref); err != nil {
			s.logger().Error("counter: note the receipt number used", "ref", p.Ref, "err", err)
		}
	}
	if s.Paid != nil {
		s.Paid(context.WithoutCancel(ctx), p) // the parents' receipt (issue 28)
	}
	return p, nil
}

// open refuses a payment by a cashier whose cash of today is closed and locked: the
// closing's figures are the day's, signed; money taken after it belongs to no closing. An
// admin reopens the day (internal/closing) when a payment must still go into it.
func (s *Service) open(ctx context.Context, actor auth.Actor) error {
	if s.Closed == nil {
		return nil
	}
	closed, err := s.Closed(ctx, actor.Username)
	if err != nil {
		return fmt.Errorf("counter: is the cash of %s closed: %w", actor.Username, err)
	}
	if closed {
		return problem.List{problem.New(FieldComponent, "closing.err.counter_closed", s.Clock.Day())}
	}
	return nil
}

// sending keeps, before the payment leaves, that it is the counter's and who takes it: a
// payment whose answer is lost is still the cashier's once the sync finds it. Without that
// record the payment is not sent (it would reach no cashier's closing).
func (s *Service) sending(ctx context.Context, actor auth.Actor, p Payment) error {
	if s.Channels == nil {
		return nil
	}
	name := actor.Username
	if s.DB != nil {
		if u, err := s.DB.UserByUsername(ctx, actor.Username); err == nil && u.DisplayName != "" {
			name = u.DisplayName
		}
	}
	if err := s.Channels.CounterSending(ctx, p.NIS, p.Ref, actor.Username, name); err != nil {
		return fmt.Errorf("counter: keep the cashier of %s: %w", p.Ref, err)
	}
	return nil
}

// answered settles the cashier's record of a payment the service answered: recorded, or
// dropped when it refused (nothing was paid). A payment without an answer keeps it.
func (s *Service) answered(ctx context.Context, p Payment, err error) {
	if s.Channels == nil {
		return
	}
	ctx = context.WithoutCancel(ctx)
	var werr error
	switch {
	case err == nil:
		werr = s.Channels.CounterRecorded(ctx, p.NIS, p.Ref)
	case !changes.Ambiguous(err):
		werr = s.Channels.CounterNotSent(ctx, p.NIS, p.Ref)
	}
	if werr != nil {
		s.logger().Error("counter: settle the cashier's record of a payment", "nis", p.NIS, "ref", p.Ref, "err", werr)
	}
}

// SuggestRef is the next receipt number of the school's pattern, or "" (no pattern, or
// the database could not be read: the person types a number).
func (s *Service) SuggestRef(ctx context.Context) string {
	if s.School == nil {
		return ""
	}
	ref, err := s.School.SuggestReceipt(ctx)
	if err != nil {
		s.logger().Warn("counter: suggest a receipt number", "err", err)
		return ""
	}
	return ref
}

// maxReceiptRefLen bounds a reference a receipt is looked up by: longer than a new
// payment's (MaxRefLen), as a bank records its own, but no reference is longer.
const maxReceiptRefLen = 100

// ErrNoReceipt means there is no payment of the student under the reference.
var ErrNoReceipt = errors.New("counter: no payment under that reference")

// Receipt reads one payment back from the service by its reference number, so it shows
// what the service recorded rather than what was asked. ErrNoReceipt when there is none
// (or the NIS or the reference cannot be one).
func (s *Service) Receipt(ctx context.Context, nis, ref string) (Receipt, error) {
	nis, ref = strings.TrimSpace(nis), strings.TrimSpace(ref)
	if !students.ValidNIS(nis) || ref == "" || len(ref) > maxReceiptRefLen {
		return Receipt{}, ErrNoReceipt
	}
	got, err := s.Billing.StudentBills(ctx, nis, billing.Query{RefNumber: ref, Limit: billing.MaxLimit})
	switch {
	case errors.Is(err, billing.ErrNotFound):
		return Receipt{}, ErrNoReceipt
	case err != nil:
		return Receipt{}, fmt.Errorf("counter: receipt %s of %s: %w", ref, nis, err)
	}
	r, ok := BuildReceipt(nis, ref, got)
	if !ok {
		return Receipt{}, ErrNoReceipt
	}
	if s.DB != nil {
		s.receiptPeople(ctx, &r)
	}
	return r, nil
}

// receiptPeople adds what the portal itself knows about a payment: the student's class
// (roster) and who recorded it at the counter (the audit log of the payment). A payment
// made at a bank has no cashier.
func (s *Service) receiptPeople(ctx context.Context, r *Receipt) {
	if st, err := s.DB.StudentByNIS(ctx, r.NIS); err == nil {
		r.Class = st.Description
		if r.StudentName == "" {
			r.StudentName = st.Name
		}
	}
	entries, err := (audit.Log{DB: s.DB}).Latest(ctx, changes.ActionPay, r.NIS, 50)
	if err != nil {
		s.logger().Warn("counter: who recorded the payment", "nis", r.NIS, "ref", r.Ref, "err", err)
		return
	}
	for _, e := range entries {
		// Entries written before they carried arguments name the reference in the detail.
		if !strings.EqualFold(e.Args.Get(audit.KeyRef), r.Ref) && !strings.Contains(e.Detail, "ref "+r.Ref+",") {
			continue
		}
		r.CashierUsername = e.Actor
		r.Cashier = e.Actor
		if u, err := s.DB.UserByUsername(ctx, e.Actor); err == nil && u.DisplayName != "" {
			r.Cashier = u.DisplayName
		}
		return
	}
}
