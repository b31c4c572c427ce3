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

	"github.com/sekolah/portal/internal/component"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/internal/store"
)

// Limits of a fee template.
const (
	MaxLines   = 20   // lines in one template
	MaxOffset  = 3650 // days after registration a due or expiry day may be
	MaxNameLen = 100  // a template's name
)

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
func ParseTemplate(in TemplateInput, accounts []string) (store.FeeTemplate, problem.List) {
	var ps problem.List
	t := store.FeeTemplate{Name: strings.Join(strings.Fields(in.Name), " ")}
	switch {
	case t.Name == "":
		ps.Add("name", "form.required")
	case utf8.RuneCountInString(t.Name) > MaxNameLen:
		ps.Add("name", "form.too_long", MaxNameLen)
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
		ps.Add("lines", "feetemplates.err.no_lines")
	case len(t.Lines) > MaxLines:
		ps.Add("lines", "feetemplates.err.too_many_lines", MaxLines)
	}
	return t, ps
}

// lineParts names a line's form parts after the component fields the rules report.
var lineParts = map[string]string{
	component.FieldName: "name", component.FieldAccount: "account", component.FieldAmount: "amount",
	component.FieldPenalty: "penalty", component.FieldDescription: "description",
}

// parseLine checks line i with the component rules (name, account code, amount, penalty,
// description); its days are rules of their own (a number of days or a fixed day).
func parseLine(i int, in LineInput, accounts []string) (store.FeeTemplateLine, problem.List) {
	var rules problem.List
	l := store.FeeTemplateLine{
		Name: component.CleanName(in.Name), Description: strings.TrimSpace(in.Description), Optional: in.Optional,
	}
	component.CheckName(&rules, l.Name)
	l.AccountCode = component.Account(&rules, in.AccountCode, accounts)
	l.Amount = component.ParseAmount(&rules, in.Amount)
	l.Penalty = component.ParsePenalty(&rules, in.Penalty)
	component.CheckDescription(&rules, l.Description)

	var ps problem.List
	f := func(part string) string { return LineField(i, part) }
	moved := func(fields ...string) {
		for _, p := range rules {
			if slices.Contains(fields, p.Field) {
				ps = append(ps, p.In(f(lineParts[p.Field])))
			}
		}
	}
	moved(component.FieldName, component.FieldAccount, component.FieldAmount, component.FieldPenalty)
	var dueOK, expOK bool
	l.Due, dueOK = parseDayField(&ps, f("due"), in.Due)
	l.Expiry, expOK = parseDayField(&ps, f("expiry"), in.Expiry)
	if dueOK && expOK && l.Due.IsFixed() == l.Expiry.IsFixed() {
		// Rules of one kind compare now; mixed ones only on a registration day (Compute).
		if l.Due.IsFixed() && l.Due.Fixed.After(l.Expiry.Fixed) || !l.Due.IsFixed() && l.Due.Offset > l.Expiry.Offset {
			ps.Add(f("due"), "feetemplates.err.due_after_expiry")
		}
	}
	moved(component.FieldDescription)
	return l, ps
}

func parseDayField(ps *problem.List, field, s string) (store.DayRule, bool) {
	if strings.TrimSpace(s) == "" {
		ps.Add(field, "form.required")
		return store.DayRule{}, false
	}
	d, err := ParseDay(s)
	if err != nil {
		if d.Offset > MaxOffset {
			ps.Add(field, "feetemplates.err.offset_range", MaxOffset)
		} else {
			ps.Add(field, "feetemplates.err.day")
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
