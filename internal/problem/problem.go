// Package problem is the one shape of a validation failure in the portal: which field is
// wrong and the catalogue key (with arguments) of the message that says why. The rules
// (internal/students, internal/component, the bills filter, the fee templates, the
// uploads) return problems; the web layer turns them into the person's language with one
// helper, the uploads' error workbook with Message.
package problem

import (
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/sekolah/portal/internal/i18n"
)

// Problem is one value that cannot be used: the form field (or URL parameter, or sheet
// column) it belongs to and the message key with its arguments. An argument that is a
// time.Time is a calendar day and is shown as one in each language.
type Problem struct {
	Field string
	Key   string
	Args  []any
}

// New is a problem of field.
func New(field, key string, args ...any) Problem { return Problem{Field: field, Key: key, Args: args} }

// Message says p in the printer's language.
func (p Problem) Message(pr i18n.Printer) string {
	if len(p.Args) == 0 {
		return pr.T(p.Key)
	}
	args := make([]any, len(p.Args))
	for i, a := range p.Args {
		if t, ok := a.(time.Time); ok {
			args[i] = pr.Day(t)
			continue
		}
		args[i] = a
	}
	return pr.T(p.Key, args...)
}

// In is p moved to another field (a form's own name for a rule's field).
func (p Problem) In(field string) Problem {
	p.Field = field
	return p
}

// List is every problem of one form, in the order found; as an error it means "show the
// form again with these messages".
type List []Problem

// Add appends a problem of field.
func (l *List) Add(field, key string, args ...any) { *l = append(*l, New(field, key, args...)) }

// Has reports whether field has a problem.
func (l List) Has(field string) bool {
	return slices.ContainsFunc(l, func(p Problem) bool { return p.Field == field })
}

// Of returns the first problem of field.
func (l List) Of(field string) (Problem, bool) {
	i := slices.IndexFunc(l, func(p Problem) bool { return p.Field == field })
	if i < 0 {
		return Problem{}, false
	}
	return l[i], true
}

// Keys lists "field=key" for each problem, for tests and logs.
func (l List) Keys() []string {
	out := make([]string, len(l))
	for i, p := range l {
		out[i] = p.Field + "=" + p.Key
	}
	return out
}

// Error lists the fields and message keys, for logs.
func (l List) Error() string { return "invalid: " + strings.Join(l.Keys(), "; ") }

// Err is l as an error, or nil when there is no problem.
func (l List) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

// As reports whether err is (or wraps) a List, and returns it.
func As(err error) (List, bool) {
	var l List
	ok := errors.As(err, &l)
	return l, ok
}
