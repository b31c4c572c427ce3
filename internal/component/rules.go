// Package component owns what the portal knows about one bill component apart from the
// service itself: the rules a component must meet before it is sent (amount, penalty,
// dates, account code, name, notes), checked the same way for the form, the fee
// templates and the uploads; and how a component reads on a page today (not yet due, due
// today, late, expired, paid, and what paying it today costs).
//
// Nothing here knows HTTP or templates: problems are catalogue keys the web layer words.
package component

import (
	"errors"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/problem"
)

// Fields of a component, as problem fields; forms and sheets map them to their own names.
const (
	FieldName    = "name"
	FieldAccount = "account_code"
	FieldAmount  = "amount"
	FieldPenalty = "penalty"
	FieldDue     = "due"
	FieldExpiry  = "expiry"
	FieldActive  = "active"
	FieldNotes   = "notes"
	// FieldDescription is a checkout component's text (fee template lines).
	FieldDescription = "description"
)

// FieldOf is the component's field a refusal of the service names (billing.Problem.Field),
// as forms and sheets name it; false for a field a component has not.
func FieldOf(serviceField string) (string, bool) {
	f, ok := serviceFields[serviceField]
	return f, ok
}

var serviceFields = map[string]string{
	billing.FieldComponentName: FieldName, billing.FieldAccount: FieldAccount, billing.FieldAmount: FieldAmount,
	billing.FieldPenalty: FieldPenalty, billing.FieldDue: FieldDue, billing.FieldExpiry: FieldExpiry,
	billing.FieldActive: FieldActive, billing.FieldNotes: FieldNotes,
}

// Fields lists a component's fields in form order.
var Fields = []string{FieldName, FieldAccount, FieldAmount, FieldPenalty, FieldDue, FieldExpiry, FieldActive, FieldNotes}

// Length limits, in characters.
const (
	MaxNameLen        = 100
	MaxNotesLen       = 255
	MaxDescriptionLen = 200
)

// The message keys of the component rules.
const (
	KeyAmount         = "components.err.amount"           // not whole rupiah
	KeyTooLarge       = "components.err.too_large"        // above i18n.MaxRupiah
	KeyDate           = "components.err.date"             // not a calendar day
	KeyDueAfterExpiry = "components.err.due_after_expiry" // args: due, expiry (days)
	KeyActiveAfterDue = "components.err.active_after_due" // args: active, due (days)
	KeyAccount        = "components.err.account"          // args: the codes known
)

// CleanName folds the runs of spaces people type in a name.
func CleanName(s string) string { return strings.Join(strings.Fields(s), " ") }

// CheckName checks a cleaned component name: required, at most MaxNameLen characters.
func CheckName(l *problem.List, name string) {
	text(l, FieldName, name, true, MaxNameLen)
}

// CheckNotes checks a component's notes: at most MaxNotesLen characters.
func CheckNotes(l *problem.List, notes string) { text(l, FieldNotes, notes, false, MaxNotesLen) }

// CheckDescription checks a checkout component's description: at most MaxDescriptionLen.
func CheckDescription(l *problem.List, s string) {
	text(l, FieldDescription, s, false, MaxDescriptionLen)
}

func text(l *problem.List, field, s string, required bool, max int) {
	switch {
	case s == "" && required:
		l.Add(field, "form.required")
	case utf8.RuneCountInString(s) > max:
		l.Add(field, "form.too_long", max)
	}
}

// Account returns the configured spelling of code (matched without regard to case), or
// adds a problem: required, or not one of the service's account codes.
func Account(l *problem.List, code string, accounts []string) string {
	code = strings.TrimSpace(code)
	if code == "" {
		l.Add(FieldAccount, "form.required")
		return ""
	}
	if i := slices.IndexFunc(accounts, func(a string) bool { return strings.EqualFold(a, code) }); i >= 0 {
		return accounts[i]
	}
	l.Add(FieldAccount, KeyAccount, strings.Join(accounts, ", "))
	return ""
}

// ParseAmount reads the amount as typed (i18n.ParseRupiah): required, whole rupiah, more
// than zero, at most i18n.MaxRupiah.
func ParseAmount(l *problem.List, s string) int64 {
	if strings.TrimSpace(s) == "" {
		l.Add(FieldAmount, "form.required")
		return 0
	}
	v, ok := parseRupiah(l, FieldAmount, s)
	if ok {
		CheckAmount(l, v)
	}
	return v
}

// ParsePenalty reads the penalty as typed: empty is none; else whole rupiah, not below zero.
func ParsePenalty(l *problem.List, s string) int64 {
	if strings.TrimSpace(s) == "" {
		return 0
	}
	v, ok := parseRupiah(l, FieldPenalty, s)
	if ok {
		CheckPenalty(l, v)
	}
	return v
}

// CheckAmount is the service's rule for an amount already read: more than zero.
func CheckAmount(l *problem.List, v int64) {
	if v <= 0 {
		l.Add(FieldAmount, "form.positive")
	}
}

// CheckPenalty is the service's rule for a penalty already read: not below zero.
func CheckPenalty(l *problem.List, v int64) {
	if v < 0 {
		l.Add(FieldPenalty, "form.not_negative")
	}
}

func parseRupiah(l *problem.List, field, s string) (int64, bool) {
	v, err := i18n.ParseRupiah(s)
	switch {
	case errors.Is(err, i18n.ErrTooLarge):
		l.Add(field, KeyTooLarge)
	case err != nil:
		l.Add(field, KeyAmount)
	default:
		return v, true
	}
	return 0, false
}

// ParseDay reads a day as typed (i18n.ParseDay) into field; empty is the zero day, a
// problem when required.
func ParseDay(l *problem.List, field, s string, required bool) time.Time {
	if strings.TrimSpace(s) == "" {
		if required {
			l.Add(field, "form.required")
		}
		return time.Time{}
	}
	d, err := i18n.ParseDay(s)
	if err != nil {
		l.Add(field, KeyDate)
		return time.Time{}
	}
	return d
}

// CheckDays is the service's order of a component's days, for days already read (zero
// days are not checked): due on or before expiry; active, when given, on or before due.
func CheckDays(l *problem.List, due, expiry, active time.Time) {
	if !due.IsZero() && !expiry.IsZero() && due.After(expiry) {
		l.Add(FieldDue, KeyDueAfterExpiry, due, expiry)
	}
	if !active.IsZero() && !due.IsZero() && active.After(due) {
		l.Add(FieldActive, KeyActiveAfterDue, active, due)
	}
}

// Input is one component as typed in a form.
type Input struct {
	Name, AccountCode, Amount, Penalty, Due, Expiry, Active, Notes string
}

// Get returns the input's value of a field (for forms built from Fields).
func (in Input) Get(field string) string {
	switch field {
	case FieldName:
		return in.Name
	case FieldAccount:
		return in.AccountCode
	case FieldAmount:
		return in.Amount
	case FieldPenalty:
		return in.Penalty
	case FieldDue:
		return in.Due
	case FieldExpiry:
		return in.Expiry
	case FieldActive:
		return in.Active
	case FieldNotes:
		return in.Notes
	}
	return ""
}

// Set stores v in the input's field.
func (in *Input) Set(field, v string) {
	switch field {
	case FieldName:
		in.Name = v
	case FieldAccount:
		in.AccountCode = v
	case FieldAmount:
		in.Amount = v
	case FieldPenalty:
		in.Penalty = v
	case FieldDue:
		in.Due = v
	case FieldExpiry:
		in.Expiry = v
	case FieldActive:
		in.Active = v
	case FieldNotes:
		in.Notes = v
	}
}

// Empty reports an input the person left alone. The account code is a drop-down that
// always has a value, so it does not count.
func (in Input) Empty() bool {
	for _, v := range []string{in.Name, in.Amount, in.Penalty, in.Due, in.Expiry, in.Active, in.Notes} {
		if strings.TrimSpace(v) != "" {
			return false
		}
	}
	return true
}

// Validate checks a component for student nis with every rule before any call: name,
// account code (one of accounts), amount, due and expiry are required; the penalty is
// optional (0); the days in the service's order. It returns the component to send.
func Validate(nis string, in Input, accounts []string) (billing.ComponentInput, problem.List) {
	var l problem.List
	c := billing.ComponentInput{NIS: nis, Name: CleanName(in.Name), Notes: strings.TrimSpace(in.Notes)}
	CheckName(&l, c.Name)
	c.AccountCode = Account(&l, in.AccountCode, accounts)
	c.Amount = ParseAmount(&l, in.Amount)
	c.Penalty = ParsePenalty(&l, in.Penalty)
	c.Due = ParseDay(&l, FieldDue, in.Due, true)
	c.Expiry = ParseDay(&l, FieldExpiry, in.Expiry, true)
	c.Active = ParseDay(&l, FieldActive, in.Active, false)
	CheckDays(&l, c.Due, c.Expiry, c.Active)
	CheckNotes(&l, c.Notes)
	return c, l
}

// Plan is the outcome of checking a form of several components: those to send, the form
// row each came from, and the problems of each row (by row index).
type Plan struct {
	Inputs   []billing.ComponentInput
	Rows     []int
	Problems map[int]problem.List
}

// Valid reports whether there is something to send and nothing is wrong.
func (p Plan) Valid() bool { return len(p.Problems) == 0 && len(p.Inputs) > 0 }

// PlanRows validates the rows for student nis; rows left empty are ignored.
func PlanRows(nis string, rows []Input, accounts []string) Plan {
	plan := Plan{Problems: map[int]problem.List{}}
	for i, r := range rows {
		if r.Empty() {
			continue
		}
		in, l := Validate(nis, r, accounts)
		if len(l) > 0 {
			plan.Problems[i] = l
			continue
		}
		plan.Inputs = append(plan.Inputs, in)
		plan.Rows = append(plan.Rows, i)
	}
	return plan
}
