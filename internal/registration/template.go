// Package registration is registering a new student with their first bill in one checkout:
// the admin's fee templates (what a registration bills), computing the checkout components
// from a template on a registration day, checking an applicant, the public form's settings
// and rate limit, and the audited calls that do it all.
package registration

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/store"
)

// Limits of a fee template.
const (
	MaxLines   = 20   // lines in one template
	MaxOffset  = 3650 // days after registration a due or expiry day may be
	MaxNameLen = 100  // template and component names
	MaxDescLen = 200  // a line's description
)

// Problem is one thing wrong with what a person typed: the form field it belongs to and
// the catalogue key (with arguments) of the message to show beside it.
type Problem struct {
	Field string
	Key   string
	Args  []any
}

// Problems are the validation failures of one form; as an error it means "show the form
// again with these messages".
type Problems []Problem

// Error lists the fields and message keys, for logs.
func (ps Problems) Error() string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.Field + ": " + p.Key
	}
	return "registration: invalid: " + strings.Join(parts, "; ")
}

// Has reports whether field has a problem.
func (ps Problems) Has(field string) bool {
	return slices.ContainsFunc(ps, func(p Problem) bool { return p.Field == field })
}

func (ps *Problems) add(field, key string, args ...any) { *ps = append(*ps, Problem{field, key, args}) }

// LineField names the form field of line i's part (name, account, amount, penalty, due,
// expiry, optional, description), e.g. "line2_amount".
func LineField(i int, part string) string { return "line" + strconv.Itoa(i) + "_" + part }

// LineInput is one line of the template form as typed.
type LineInput struct {
	Name, AccountCode, Amount, Penalty, Due, Expiry, Description string
	Optional                                                     bool
}

// Blank reports whether nothing was typed in the line (the account drop-down always has a
// value, and an unticked box is no input): blank lines are the form's spare rows.
func (l LineInput) Blank() bool {
	return strings.TrimSpace(l.Name+l.Amount+l.Penalty+l.Due+l.Expiry+l.Description) == ""
}

// TemplateInput is the template form as typed.
type TemplateInput struct {
	Name  string
	Lines []LineInput
}

// InputOf turns a stored template back into form input, for editing.
func InputOf(t store.FeeTemplate) TemplateInput {
	in := TemplateInput{Name: t.Name}
	for _, l := range t.Lines {
		penalty := ""
		if l.Penalty != 0 {
			penalty = strconv.FormatInt(l.Penalty, 10)
		}
		in.Lines = append(in.Lines, LineInput{
			Name: l.Name, AccountCode: l.AccountCode, Amount: strconv.FormatInt(l.Amount, 10), Penalty: penalty,
			Due: FormatDay(l.Due), Expiry: FormatDay(l.Expiry), Description: l.Description, Optional: l.Optional,
		})
	}
	return in
}

// ParseTemplate checks the form and returns the template it describes; blank lines are
// left out, and problems name the form's own line numbers. accounts are the account codes
// the billing service knows.
func ParseTemplate(in TemplateInput, accounts []string) (store.FeeTemplate, Problems) {
	var ps Problems
	t := store.FeeTemplate{Name: strings.Join(strings.Fields(in.Name), " ")}
	switch {
	case t.Name == "":
		ps.add("name", "form.required")
	case utf8.RuneCountInString(t.Name) > MaxNameLen:
		ps.add("name", "form.too_long", MaxNameLen)
	}
	for i, li := range in.Lines {
		if li.Blank() {
			continue
		}
		l, lps := parseLine(i, li, accounts)
		ps = append(ps, lps...)
		t.Lines = append(t.Lines, l)
	}
	switch {
	case len(t.Lines) == 0:
		ps.add("lines", "feetemplates.err.no_lines")
	case len(t.Lines) > MaxLines:
		ps.add("lines", "feetemplates.err.too_many_lines", MaxLines)
	}
	return t, ps
}

func parseLine(i int, in LineInput, accounts []string) (store.FeeTemplateLine, Problems) {
	var ps Problems
	f := func(part string) string { return LineField(i, part) }
	l := store.FeeTemplateLine{
		Name: strings.Join(strings.Fields(in.Name), " "), AccountCode: strings.TrimSpace(in.AccountCode),
		Description: strings.TrimSpace(in.Description), Optional: in.Optional,
	}
	switch {
	case l.Name == "":
		ps.add(f("name"), "form.required")
	case utf8.RuneCountInString(l.Name) > MaxNameLen:
		ps.add(f("name"), "form.too_long", MaxNameLen)
	}
	if !slices.Contains(accounts, l.AccountCode) {
		ps.add(f("account"), "form.invalid_choice")
	}
	if strings.TrimSpace(in.Amount) == "" {
		ps.add(f("amount"), "form.required")
	} else if v, err := i18n.ParseRupiah(in.Amount); err != nil || v < 0 {
		// A sign is not how a fee is written: the same message as any other typo.
		ps.add(f("amount"), "form.invalid_number")
	} else if v == 0 {
		ps.add(f("amount"), "form.positive")
	} else {
		l.Amount = v
	}
	if strings.TrimSpace(in.Penalty) != "" {
		if v, err := i18n.ParseRupiah(in.Penalty); err != nil || v < 0 {
			ps.add(f("penalty"), "form.invalid_number")
		} else {
			l.Penalty = v
		}
	}
	var dueOK, expOK bool
	l.Due, dueOK = parseDayField(&ps, f("due"), in.Due)
	l.Expiry, expOK = parseDayField(&ps, f("expiry"), in.Expiry)
	if dueOK && expOK && l.Due.IsFixed() == l.Expiry.IsFixed() {
		// Rules of one kind compare now; mixed ones only on a registration day (Compute).
		if l.Due.IsFixed() && l.Due.Fixed.After(l.Expiry.Fixed) || !l.Due.IsFixed() && l.Due.Offset > l.Expiry.Offset {
			ps.add(f("due"), "feetemplates.err.due_after_expiry")
		}
	}
	if utf8.RuneCountInString(l.Description) > MaxDescLen {
		ps.add(f("description"), "form.too_long", MaxDescLen)
	}
	return l, ps
}

func parseDayField(ps *Problems, field, s string) (store.DayRule, bool) {
	if strings.TrimSpace(s) == "" {
		ps.add(field, "form.required")
		return store.DayRule{}, false
	}
	d, err := ParseDay(s)
	if err != nil {
		if d.Offset > MaxOffset {
			ps.add(field, "feetemplates.err.offset_range", MaxOffset)
		} else {
			ps.add(field, "feetemplates.err.day")
		}
		return store.DayRule{}, false
	}
	return d, true
}

var offsetRE = regexp.MustCompile(`^\+?\s*(\d{1,6})$`)

// ParseDay reads a due or expiry rule: a number of days after registration ("14", "+14")
// or a fixed day in any form i18n.ParseDay reads ("2027-07-15", or day first as
// Indonesians write it: "15-07-2027", "15/07/2027", "15 Jul 2027").
func ParseDay(s string) (store.DayRule, error) {
	s = strings.TrimSpace(s)
	if m := offsetRE.FindStringSubmatch(s); m != nil {
		n, _ := strconv.Atoi(m[1])
		if n > MaxOffset {
			return store.DayRule{Offset: n}, fmt.Errorf("registration: %d days is more than %d", n, MaxOffset)
		}
		return store.DayRule{Offset: n}, nil
	}
	if t, err := i18n.ParseDay(s); err == nil {
		return store.DayRule{Fixed: t}, nil
	}
	return store.DayRule{}, fmt.Errorf("registration: %q is neither a number of days nor a date", s)
}

// FormatDay writes a rule the way ParseDay reads it: "+14" or "2027-07-15".
func FormatDay(d store.DayRule) string {
	if d.IsFixed() {
		return d.Fixed.UTC().Format(time.DateOnly)
	}
	return "+" + strconv.Itoa(d.Offset)
}
