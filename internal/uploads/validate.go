package uploads

import (
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/i18n"
)

// Issue is one problem with one cell. Code is the message key under "uploads.err." and
// Args its arguments (dates in Args are marked with DateArg so each language shows them
// its own way).
type Issue struct {
	Row  int // 1-based sheet row
	Col  int // 0-based column
	Code string
	Args []string
}

// Cell is the issue's cell name, e.g. "D17".
func (i Issue) Cell() string { return cellName(i.Col, i.Row) }

// dateMark prefixes an argument that is a calendar day (YYYY-MM-DD).
const dateMark = "\x01"

// DateArg marks a day as a message argument.
func DateArg(t time.Time) string { return dateMark + t.Format(time.DateOnly) }

// Component is one valid row of a components sheet.
type Component struct {
	Row         int
	NIS         string
	AccountCode string
	Name        string
	Due         time.Time
	Expiry      time.Time
	Active      time.Time
	Amount      int64
	Penalty     int64
	Notes       string
}

// Input is the component as the billing client sends it.
func (c Component) Input() billing.ComponentInput {
	return billing.ComponentInput{NIS: c.NIS, AccountCode: c.AccountCode, Name: c.Name, Due: c.Due,
		Expiry: c.Expiry, Active: c.Active, Amount: c.Amount, Penalty: c.Penalty, Notes: c.Notes}
}

// Student is one valid row of a students sheet.
type Student struct {
	Row   int
	NIS   string
	Name  string
	Class string
	Phone string
	Email string
}

// Record is the student as the billing client sends it.
func (s Student) Record() billing.Student {
	return billing.Student{NIS: s.NIS, Name: s.Name, KeyName: billing.DefaultKeyName, Phone: s.Phone, Email: s.Email, Description: s.Class}
}

// Length limits of free text, in characters.
const (
	maxNameLen  = 200
	maxNotesLen = 500
	maxClassLen = 100
	maxEmailLen = 254
)

// validator checks rows of one sheet against the service's rules.
type validator struct {
	l        *Layout
	accounts map[string]string // upper-cased code → the configured spelling
	codes    string            // the codes, for messages
	date1904 bool
}

func newValidator(l *Layout, accounts []string, date1904 bool) *validator {
	v := &validator{l: l, accounts: map[string]string{}, codes: strings.Join(accounts, ", "), date1904: date1904}
	for _, a := range accounts {
		v.accounts[strings.ToUpper(a)] = a
	}
	return v
}

func (v *validator) get(cells []string, f Field) string {
	col := v.l.Col[f]
	if col < 0 || col >= len(cells) {
		return ""
	}
	return i18n.TrimSpace(cells[col])
}

func (v *validator) issue(row int, f Field, code string, args ...string) Issue {
	return Issue{Row: row, Col: v.l.Col[f], Code: code, Args: args}
}

// text checks a free-text field; it returns "" after reporting a problem.
func (v *validator) text(row int, cells []string, f Field, required bool, maxLen int, emit func(Issue)) string {
	s := v.get(cells, f)
	switch {
	case s == "":
		if required {
			emit(v.issue(row, f, "required", v.l.Header[f]))
		}
		return ""
	case len(s) > maxLen && utf8.RuneCountInString(s) > maxLen:
		emit(v.issue(row, f, "too_long", v.l.Header[f], strconv.Itoa(maxLen)))
		return ""
	}
	return s
}

// nis checks a student number; it returns "" after reporting a problem.
func (v *validator) nis(row int, cells []string, emit func(Issue)) string {
	s := v.get(cells, FieldNIS)
	if s == "" {
		emit(v.issue(row, FieldNIS, "required", v.l.Header[FieldNIS]))
		return ""
	}
	if !validNIS(s) {
		emit(v.issue(row, FieldNIS, "nis_format", s))
		return ""
	}
	return s
}

// validNIS is the service's rule: 1–32 letters, digits, dots or dashes.
func validNIS(s string) bool {
	if len(s) == 0 || len(s) > 32 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

// amount reads a money cell; ok is false after a problem was reported.
func (v *validator) amount(row int, cells []string, f Field, required bool, emit func(Issue)) (int64, bool) {
	s := v.get(cells, f)
	if s == "" {
		if required {
			emit(v.issue(row, f, "required", v.l.Header[f]))
			return 0, false
		}
		return 0, true
	}
	n, err := i18n.ParseRupiahCell(s)
	switch {
	case errors.Is(err, i18n.ErrFraction):
		emit(v.issue(row, f, "amount_fraction", s))
	case errors.Is(err, i18n.ErrTooLarge):
		emit(v.issue(row, f, "amount_too_large", s))
	case err != nil:
		emit(v.issue(row, f, "amount_invalid", s))
	case f == FieldAmount && n <= 0:
		emit(v.issue(row, f, "amount_positive", s))
	case f == FieldPenalty && n < 0:
		emit(v.issue(row, f, "penalty_negative", s))
	default:
		return n, true
	}
	return 0, false
}

// date reads a day cell; ok is false after a problem was reported.
func (v *validator) date(row int, cells []string, f Field, required bool, emit func(Issue)) (time.Time, bool) {
	s := v.get(cells, f)
	if s == "" {
		if required {
			emit(v.issue(row, f, "required", v.l.Header[f]))
			return time.Time{}, false
		}
		return time.Time{}, true
	}
	t, err := ParseDate(s, v.date1904)
	switch {
	case errors.Is(err, ErrDateRange):
		emit(v.issue(row, f, "date_range", s, strconv.Itoa(MinYear), strconv.Itoa(MaxYear)))
	case err != nil:
		emit(v.issue(row, f, "date_invalid", s))
	default:
		return t, true
	}
	return time.Time{}, false
}

// component checks one row of a components sheet. It fills c with every field that is
// valid (NIS, Name and Due also when another cell of the row is wrong, for the duplicate
// check) and reports whether the whole row is valid.
func (v *validator) component(row int, cells []string, c *Component, emit func(Issue)) bool {
	*c = Component{Row: row}
	ok := true
	bad := func(is Issue) { ok = false; emit(is) }
	c.NIS = v.nis(row, cells, bad)
	c.Name = v.text(row, cells, FieldName, true, maxNameLen, bad)
	if s := v.get(cells, FieldAccount); s == "" {
		bad(v.issue(row, FieldAccount, "required", v.l.Header[FieldAccount]))
	} else if code, known := v.accounts[strings.ToUpper(s)]; !known {
		bad(v.issue(row, FieldAccount, "account_unknown", s, v.codes))
	} else {
		c.AccountCode = code
	}
	c.Amount, _ = v.amount(row, cells, FieldAmount, true, bad)
	c.Penalty, _ = v.amount(row, cells, FieldPenalty, false, bad)
	var dueOK, expOK, actOK bool
	c.Due, dueOK = v.date(row, cells, FieldDue, true, bad)
	c.Expiry, expOK = v.date(row, cells, FieldExpiry, true, bad)
	c.Active, actOK = v.date(row, cells, FieldActive, false, bad)
	if dueOK && expOK && c.Due.After(c.Expiry) {
		bad(v.issue(row, FieldDue, "due_after_expiry", DateArg(c.Due), DateArg(c.Expiry)))
	}
	if dueOK && actOK && !c.Active.IsZero() && c.Active.After(c.Due) {
		bad(v.issue(row, FieldActive, "active_after_due", DateArg(c.Active), DateArg(c.Due)))
	}
	c.Notes = v.text(row, cells, FieldNotes, false, maxNotesLen, bad)
	return ok
}

// student checks one row of a students sheet, filling s with the valid fields.
func (v *validator) student(row int, cells []string, s *Student, emit func(Issue)) bool {
	*s = Student{Row: row}
	ok := true
	bad := func(is Issue) { ok = false; emit(is) }
	s.NIS = v.nis(row, cells, bad)
	s.Name = v.text(row, cells, FieldStudentName, true, maxNameLen, bad)
	s.Class = v.text(row, cells, FieldClass, false, maxClassLen, bad)
	if p := v.get(cells, FieldPhone); p != "" {
		if validPhone(p) {
			s.Phone = p
		} else {
			bad(v.issue(row, FieldPhone, "phone_invalid", p))
		}
	}
	if e := v.get(cells, FieldEmail); e != "" {
		if validEmail(e) {
			s.Email = e
		} else {
			bad(v.issue(row, FieldEmail, "email_invalid", e))
		}
	}
	return ok
}

// validPhone accepts what people write for a phone: an optional +, then 6–20 digits with
// spaces, dashes, dots or brackets between them.
func validPhone(p string) bool {
	digits := 0
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == '+' && i == 0:
		case c == ' ' || c == '-' || c == '.' || c == '(' || c == ')':
		default:
			return false
		}
	}
	return digits >= 6 && digits <= 20
}

// validEmail is deliberately loose: one @ with text before it and a dotted domain after,
// no spaces. Stricter checks refuse real addresses more often than they catch typos.
func validEmail(e string) bool {
	if len(e) > maxEmailLen || strings.ContainsAny(e, " \t,;<>") {
		return false
	}
	at := strings.IndexByte(e, '@')
	if at < 1 || at != strings.LastIndexByte(e, '@') {
		return false
	}
	domain := e[at+1:]
	dot := strings.LastIndexByte(domain, '.')
	return dot > 0 && dot < len(domain)-1
}

// nameKey folds a component name for matching: case and runs of spaces do not make two
// components different ("SPP Juli" and "spp  juli" are the same bill).
func nameKey(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}
