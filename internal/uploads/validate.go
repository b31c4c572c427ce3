package uploads

import (
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/component"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/internal/sheets"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/students"
)

// Issue is one problem with one cell: the sheet row (1-based) and column (0-based), and
// the problem in the portal's one shape. Rule problems come from internal/students and
// internal/component; reading problems (a cell that is not a date, an unknown NIS, a
// duplicate row) have keys under "uploads.err.".
type Issue struct {
	Row int
	Col int
	// Value is what the cell holds, when the message is clearer for quoting it.
	Value   string
	Problem problem.Problem
}

// Cell is the issue's cell name, e.g. "D17".
func (i Issue) Cell() string { return cellName(i.Col, i.Row) }

// Message says in p's language which cell is wrong and why: "Sel D17: ...".
func (i Issue) Message(p i18n.Printer) string {
	if i.Value != "" {
		return p.T("uploads.err.at_value", i.Cell(), i.Value, i.Problem.Message(p))
	}
	return p.T("uploads.err.at", i.Cell(), i.Problem.Message(p))
}

// MessageAt says the problem as the error workbook does, naming the cell where it is now
// (at) and where it was in the upload: "Sel D2 (D11 di berkas yang diunggah): ...".
func (i Issue) MessageAt(p i18n.Printer, at string) string {
	if at == i.Cell() {
		return i.Message(p)
	}
	if i.Value != "" {
		return p.T("uploads.errbook.at_value", at, i.Cell(), i.Value, i.Problem.Message(p))
	}
	return p.T("uploads.errbook.at", at, i.Cell(), i.Problem.Message(p))
}

// Text says in p's language what is wrong with the cell without naming it, for a note on
// the cell itself: ""seribu" — bukan nominal ...".
func (i Issue) Text(p i18n.Printer) string {
	msg := i.Problem.Message(p)
	if i.Value != "" {
		return p.T("uploads.err.value", i.Value, msg)
	}
	if r, n := utf8.DecodeRuneInString(msg); n > 0 {
		msg = string(unicode.ToUpper(r)) + msg[n:]
	}
	return msg
}

// dateMark prefixes a stored argument that is a calendar day (YYYY-MM-DD); valueMark a
// first one that is the cell's value; intMark a whole number (a rule's "at most 100
// characters"), read back as one for its message's %d.
const (
	dateMark  = "\x01"
	valueMark = "\x02"
	intMark   = "\x03"
)

// issueKeyPrefix is the key prefix of the reading problems; issues stored before the
// rules had their own keys carry only the code after it. warnKeyPrefix is the warnings':
// a cell that may not say what was meant (an amount far below the others, a date read
// month-first), which does not stop its row but must be acknowledged before the commit.
const (
	issueKeyPrefix = "uploads.err."
	warnKeyPrefix  = "uploads.warn."
)

// StoredIssue is the issue as the store keeps it: the key, and the arguments as text
// (days marked, so each language shows them its own way).
func (i Issue) Stored() store.UploadIssue {
	args := make([]string, 0, len(i.Problem.Args)+1)
	if i.Value != "" {
		args = append(args, valueMark+i.Value)
	}
	for _, a := range i.Problem.Args {
		switch a := a.(type) {
		case time.Time:
			args = append(args, dateMark+a.Format(time.DateOnly))
		case int, int64:
			args = append(args, intMark+fmt.Sprint(a))
		default:
			args = append(args, fmt.Sprint(a))
		}
	}
	return store.UploadIssue{Row: i.Row, Col: i.Col, Code: i.Problem.Key, Args: args}
}

// IssueOf reads a stored issue back.
func IssueOf(s store.UploadIssue) Issue {
	key := s.Code
	if !strings.Contains(key, ".") {
		key = issueKeyPrefix + key
	}
	is := Issue{Row: s.Row, Col: s.Col, Problem: problem.Problem{Key: key}}
	for n, a := range s.Args {
		if rest, ok := strings.CutPrefix(a, valueMark); ok && n == 0 {
			is.Value = rest
			continue
		}
		var arg any = a
		if rest, ok := strings.CutPrefix(a, dateMark); ok {
			if t, err := time.Parse(time.DateOnly, rest); err == nil {
				arg = t
			}
		}
		if rest, ok := strings.CutPrefix(a, intMark); ok {
			if n, err := strconv.ParseInt(rest, 10, 64); err == nil {
				arg = n
			}
		}
		is.Problem.Args = append(is.Problem.Args, arg)
	}
	return is
}

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
	// Aid are the government-aid flags of a Dapodik export, when the sheet has them
	// (HasAid): kept with the student in the portal (the service knows nothing of them).
	Aid    store.StudentAid
	HasAid bool
}

// Record is the student as the billing client sends it.
func (s Student) Record() billing.Student {
	return billing.Student{NIS: s.NIS, Name: s.Name, KeyName: billing.DefaultKeyName, Phone: s.Phone, Email: s.Email, Description: s.Class}
}

// validator checks rows of one sheet against the service's rules.
type validator struct {
	l        *Layout
	accounts []string
	date1904 bool
	// bad are the fields of the current row whose cell was a formula's error, already
	// said: nothing else is said of them.
	bad [numFields]bool
	// dates notes the date cells and text dates read, for the order they were typed in.
	dates dateOrders
}

func newValidator(l *Layout, accounts []string, date1904 bool) *validator {
	return &validator{l: l, accounts: accounts, date1904: date1904}
}

// cell is the row's cell of field f (KindEmpty when the sheet has no such column).
func (v *validator) cell(cells []sheets.Cell, f Field) sheets.Cell {
	col := v.l.Col[f]
	if col < 0 || col >= len(cells) || v.bad[f] {
		return sheets.Cell{}
	}
	return cells[col]
}

// get is the trimmed text of the row's cell of field f.
func (v *validator) get(cells []sheets.Cell, f Field) string {
	return i18n.TrimSpace(cellText(v.cell(cells, f)))
}

func (v *validator) issue(row int, f Field, key string, args ...any) Issue {
	return Issue{Row: row, Col: v.l.Col[f], Problem: problem.New("", issueKeyPrefix+key, args...)}
}

func (v *validator) warning(row int, f Field, key string, args ...any) Issue {
	return Issue{Row: row, Col: v.l.Col[f], Problem: problem.New("", warnKeyPrefix+key, args...)}
}

// formulaErrors says of each cell the row's fields have that holds a formula's error
// (#N/A, #REF!, …) that it is one, by its name: the row cannot be sent, and nothing else
// is said of the cell. It reports whether there was any.
func (v *validator) formulaErrors(row int, cells []sheets.Cell, emit func(Issue)) bool {
	v.bad = [numFields]bool{}
	found := false
	for f := Field(0); f < numFields; f++ {
		col := v.l.Col[f]
		if col < 0 || col >= len(cells) || cells[col].Kind != sheets.KindError {
			continue
		}
		emit(Issue{Row: row, Col: col, Problem: problem.New("", issueKeyPrefix+"formula_error", v.l.Header[f], cells[col].Text)})
		v.bad[f], found = true, true
	}
	return found
}

// quoted are the rule problems whose message is clearer with the cell's value beside it;
// the others say the value themselves (the days) or it would be too long to repeat.
var quoted = map[string]bool{
	students.KeyNIS: true, students.KeyPhone: true, students.KeyEmail: true, component.KeyAccount: true,
	"form.positive": true, "form.not_negative": true,
}

// maxQuoted is the most of a cell's value a message quotes: a NIS, a phone, an e-mail
// address, an amount are far shorter. A longer one is cut, with "…": a message (kept in
// the database, shown on the page and twice in the error workbook) never carries a
// 32,000-character cell.
const maxQuoted = 80

func quote(s string) string {
	if cut, _, ok := cutText(s, maxQuoted); ok {
		return cut + "…"
	}
	return s
}

// rules reports the problems a rule package found in row, each at its field's cell.
func (v *validator) rules(row int, cells []sheets.Cell, l problem.List, col map[string]Field, emit func(Issue)) {
	for _, p := range l {
		f := col[p.Field]
		is := Issue{Row: row, Col: v.l.Col[f], Problem: p}
		if quoted[p.Key] {
			is.Value = quote(v.get(cells, f))
		}
		emit(is)
	}
}

// required reads a cell that must not be empty; it returns "" after reporting a problem.
func (v *validator) required(row int, cells []sheets.Cell, f Field, emit func(Issue)) string {
	s := v.get(cells, f)
	if s == "" && !v.bad[f] {
		emit(v.issue(row, f, "required", v.l.Header[f]))
	}
	return s
}

// nis checks a student number with the student rule; it returns "" after a problem.
func (v *validator) nis(row int, cells []sheets.Cell, emit func(Issue)) string {
	s := v.required(row, cells, FieldNIS, emit)
	if s == "" {
		return ""
	}
	var l problem.List
	if !students.CheckNIS(&l, students.FieldNIS, s) {
		v.rules(row, cells, l, map[string]Field{students.FieldNIS: FieldNIS}, emit)
		return ""
	}
	return s
}

// amount reads a money cell: a number as stored, a text as people type rupiah
// ("350.000", "Rp 1.250.000"); ok is false after a problem was reported.
func (v *validator) amount(row int, cells []sheets.Cell, f Field, required bool, emit func(Issue)) (int64, bool) {
	c := v.cell(cells, f)
	s := i18n.TrimSpace(cellText(c))
	if s == "" {
		if required && !v.bad[f] {
			emit(v.issue(row, f, "required", v.l.Header[f]))
			return 0, false
		}
		return 0, !v.bad[f]
	}
	var n int64
	var err error
	switch c.Kind {
	case sheets.KindNumber:
		n, err = i18n.ParseRupiahCell(c.Raw)
	case sheets.KindText:
		n, err = i18n.ParseRupiahCell(s)
	default: // a date, a time, TRUE
		err = i18n.ErrNotNumber
	}
	switch {
	case errors.Is(err, i18n.ErrFraction):
		emit(v.issue(row, f, "amount_fraction", s))
	case errors.Is(err, i18n.ErrTooLarge):
		emit(v.issue(row, f, "amount_too_large", s))
	case err != nil:
		emit(v.issue(row, f, "amount_invalid", s))
	default:
		return n, true
	}
	return 0, false
}

// date reads a day cell: a date cell as it is, a number as a date serial, a text as people
// type days (10/08/2027, 10 Agustus 2027); ok is false after a problem was reported. The
// order of the day and month of each is noted (v.dates).
func (v *validator) date(row int, cells []sheets.Cell, f Field, required bool, emit func(Issue)) (time.Time, bool) {
	c := v.cell(cells, f)
	s := i18n.TrimSpace(cellText(c))
	if s == "" {
		if required && !v.bad[f] {
			emit(v.issue(row, f, "required", v.l.Header[f]))
			return time.Time{}, false
		}
		return time.Time{}, !v.bad[f]
	}
	var t time.Time
	var err error
	switch c.Kind {
	case sheets.KindDate:
		t = time.Date(c.Time.Year(), c.Time.Month(), c.Time.Day(), 0, 0, 0, 0, time.UTC)
		if t.Year() < MinYear || t.Year() > MaxYear {
			err = ErrDateRange
		}
	case sheets.KindNumber:
		t, err = ParseDate(c.Raw, v.date1904)
	case sheets.KindText:
		if t, err = ParseDate(s, v.date1904); err != nil {
			v.dates.noteText(c, s) // 07/25/2027 says the sheet is month-first all the same
		}
	default:
		err = ErrNotDate
	}
	switch {
	case errors.Is(err, ErrDateRange):
		emit(v.issue(row, f, "date_range", s, strconv.Itoa(MinYear), strconv.Itoa(MaxYear)))
	case err != nil:
		emit(v.issue(row, f, "date_invalid", s))
	default:
		v.dates.note(row, v.l.Col[f], c, s, t)
		return t, true
	}
	return time.Time{}, false
}

// componentCols places the component rules' problems in the sheet's columns.
var componentCols = map[string]Field{
	component.FieldName: FieldName, component.FieldAccount: FieldAccount, component.FieldAmount: FieldAmount,
	component.FieldPenalty: FieldPenalty, component.FieldDue: FieldDue, component.FieldExpiry: FieldExpiry,
	component.FieldActive: FieldActive, component.FieldNotes: FieldNotes,
}

// component checks one row of a components sheet with the component rules. It fills c
// with every field that is valid (NIS, Name and Due also when another cell of the row is
// wrong, for the duplicate check) and reports whether the whole row is valid.
func (v *validator) component(row int, cells []sheets.Cell, c *Component, emit func(Issue)) bool {
	*c = Component{Row: row}
	ok := true
	bad := func(is Issue) { ok = false; emit(is) }
	v.formulaErrors(row, cells, bad)
	c.NIS = v.nis(row, cells, bad)
	var l problem.List
	if name := v.required(row, cells, FieldName, bad); name != "" {
		name = component.CleanName(name)
		if component.CheckName(&l, name); !l.Has(component.FieldName) {
			c.Name = name
		}
	}
	if code := v.required(row, cells, FieldAccount, bad); code != "" {
		c.AccountCode = component.Account(&l, code, v.accounts)
	}
	amount, amountOK := v.amount(row, cells, FieldAmount, true, bad)
	if amountOK {
		component.CheckAmount(&l, amount)
		c.Amount = amount
	}
	penalty, penaltyOK := v.amount(row, cells, FieldPenalty, false, bad)
	if penaltyOK {
		component.CheckPenalty(&l, penalty)
		c.Penalty = penalty
	}
	// A day that cannot be read is the zero day, which CheckDays leaves alone.
	c.Due, _ = v.date(row, cells, FieldDue, true, bad)
	c.Expiry, _ = v.date(row, cells, FieldExpiry, true, bad)
	c.Active, _ = v.date(row, cells, FieldActive, false, bad)
	component.CheckDays(&l, c.Due, c.Expiry, c.Active)
	c.Notes = v.get(cells, FieldNotes)
	component.CheckNotes(&l, c.Notes)
	if len(l) > 0 {
		ok = false
		v.rules(row, cells, l, componentCols, emit)
	}
	return ok
}

// studentCols places the student rules' problems in the sheet's columns.
var studentCols = map[string]Field{
	students.FieldNIS: FieldNIS, students.FieldName: FieldStudentName, students.FieldClass: FieldClass,
	students.FieldPhone: FieldPhone, students.FieldEmail: FieldEmail,
}

// student checks one row of a students sheet with the student rules, filling s with the
// valid fields (the phone normalised as every form keeps it: the mobile, else the landline
// when the sheet has both columns) and the aid flags.
func (v *validator) student(row int, cells []sheets.Cell, s *Student, emit func(Issue)) bool {
	*s = Student{Row: row}
	ok := true
	bad := func(is Issue) { ok = false; emit(is) }
	v.formulaErrors(row, cells, bad)
	s.NIS = v.nis(row, cells, bad)
	name := v.required(row, cells, FieldStudentName, bad)
	phoneField := FieldPhone
	if v.get(cells, FieldPhone) == "" && v.get(cells, FieldLandline) != "" {
		phoneField = FieldLandline
	}
	in := students.Input{Name: name, Class: v.get(cells, FieldClass), Phone: lostZero(v.get(cells, phoneField)), Email: v.get(cells, FieldEmail)}.Clean()
	var l problem.List
	if name != "" && students.CheckText(&l, students.FieldName, in.Name, true, students.MaxNameLen) {
		s.Name = in.Name
	}
	if students.CheckText(&l, students.FieldClass, in.Class, false, students.MaxClassLen) {
		s.Class = in.Class
	}
	if students.CheckPhone(&l, in.Phone) {
		s.Phone = in.Phone
	}
	if students.CheckEmail(&l, in.Email) {
		s.Email = in.Email
	}
	if len(l) > 0 {
		ok = false
		cols := studentCols
		if phoneField == FieldLandline {
			cols = maps.Clone(studentCols)
			cols[students.FieldPhone] = FieldLandline
		}
		v.rules(row, cells, l, cols, emit)
	}
	for _, aid := range []struct {
		f    Field
		flag *bool
	}{{FieldAidKIP, &s.Aid.KIP}, {FieldAidKPS, &s.Aid.KPS}, {FieldAidPIP, &s.Aid.PIP}} {
		f, flag := aid.f, aid.flag
		if !v.l.Has(f) {
			continue
		}
		s.HasAid = true
		yes, known := yesNo(v.cell(cells, f))
		if !known {
			bad(Issue{Row: row, Col: v.l.Col[f], Value: quote(v.get(cells, f)), Problem: problem.New("", issueKeyPrefix+"yes_no", v.l.Header[f])})
		}
		*flag = yes
	}
	return ok
}

// lostZero puts back the 0 a mobile number loses in a number cell (or a CSV exported from
// one): 81234567890 is 081234567890; no Indonesian number starts with 8 otherwise.
func lostZero(phone string) string {
	if len(phone) < 9 || len(phone) > 12 || phone[0] != '8' || strings.Trim(phone, "0123456789") != "" {
		return phone
	}
	return "0" + phone
}

// yesNo reads a flag as Dapodik writes it ("Ya", "Tidak") and as people do (Y, N, 1, 0,
// TRUE, a checkbox's boolean); an empty cell is no. known is false for anything else.
func yesNo(c sheets.Cell) (yes, known bool) {
	switch c.Kind {
	case sheets.KindEmpty:
		return false, true
	case sheets.KindBool, sheets.KindNumber:
		return c.Number == 1, c.Number == 0 || c.Number == 1
	}
	switch strings.ToLower(i18n.TrimSpace(c.Text)) {
	case "ya", "y", "yes", "1", "true", "benar", "v", "✓", "penerima", "layak":
		return true, true
	case "tidak", "t", "no", "n", "0", "false", "salah", "-", "", "bukan":
		return false, true
	}
	return false, false
}

// nameKey folds a component name for matching: case and runs of spaces do not make two
// components different ("SPP Juli" and "spp  juli" are the same bill).
func nameKey(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}
