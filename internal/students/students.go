// Package students owns the portal's knowledge of a student apart from the service
// itself: the rules a student must meet before anything is sent (NIS, name, phone
// normalised to +62…/08…, e-mail, class), checked the same way by every form and upload;
// the totals shown per student; reading a student into the roster. (The roster sync is
// the ledger's: internal/ledger fills the roster from the service's student list.)
//
// Nothing here knows HTTP or templates: problems are catalogue keys the web layer words.
package students

import (
	"net/mail"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/problem"
)

// Fields of a student, as problem fields (the forms' own names).
const (
	FieldNIS     = "nis"
	FieldName    = "name"
	FieldKeyName = "key_name"
	FieldPhone   = "phone"
	FieldEmail   = "email"
	// FieldClass is the class, which the service keeps as the student's description.
	FieldClass = "description"
)

// FieldOf is the student's field a refusal of the service names (billing.Problem.Field),
// as forms name it; false for a field a student form does not have.
func FieldOf(serviceField string) (string, bool) {
	f, ok := serviceFields[serviceField]
	return f, ok
}

var serviceFields = map[string]string{
	billing.FieldNIS: FieldNIS, billing.FieldName: FieldName, billing.FieldKeyName: FieldKeyName,
	billing.FieldPhone: FieldPhone, billing.FieldEmail: FieldEmail, billing.FieldDescription: FieldClass,
}

// Length limits, in characters.
const (
	MaxNISLen     = 32
	MaxNameLen    = 150
	MaxKeyNameLen = 50
	MaxEmailLen   = 254
	MaxClassLen   = 100
	// MaxSearchLen bounds a search by name or NIS: longer than any name, short enough for
	// the database (a 50,000-character one was SQLite's "pattern too complex").
	MaxSearchLen = 200
)

// CheckSearch checks a search of students by name or NIS as field: at most MaxSearchLen
// characters. It reports whether q may be searched for.
func CheckSearch(l *problem.List, field, q string) bool {
	if utf8.RuneCountInString(q) > MaxSearchLen {
		l.Add(field, KeySearchLong, MaxSearchLen)
		return false
	}
	return true
}

// The message keys of the student rules.
const (
	KeyNIS   = "students.err.nis"   // not 1–32 of [A-Za-z0-9.-]
	KeyPhone = "students.err.phone" // not an Indonesian phone number
	KeyEmail = "form.invalid_email"
	// KeySearchLong: a search over MaxSearchLen characters.
	KeySearchLong = "students.err.search_long"
)

// KeyNames are the NIS kinds the form offers; the service accepts any non-empty text and
// recommends the first.
var KeyNames = []string{billing.DefaultKeyName, "Nomor Induk Siswa"}

// nisPattern is the service's shape of a student number.
var nisPattern = regexp.MustCompile(`^[A-Za-z0-9.-]{1,32}$`)

// phonePattern is an Indonesian number once normalised: +62 or 0, then 7 to 13 digits
// not starting with 0 (+62812…, 0812…, 021…).
var phonePattern = regexp.MustCompile(`^(?:\+62|0)[1-9][0-9]{6,12}$`)

// ValidNIS reports whether s has the service's shape of a student number.
func ValidNIS(s string) bool { return nisPattern.MatchString(s) }

// CheckNIS adds the problem of a trimmed NIS to l under field: required, and the
// service's shape. It reports whether the NIS is valid.
func CheckNIS(l *problem.List, field, nis string) bool {
	switch {
	case nis == "":
		l.Add(field, "form.required")
	case !ValidNIS(nis):
		l.Add(field, KeyNIS)
	default:
		return true
	}
	return false
}

// CleanName folds the runs of spaces people type in a name.
func CleanName(s string) string { return strings.Join(strings.Fields(s), " ") }

// NormalizePhone writes a phone number the one way the portal keeps it: the separators
// people type ("0812-3456 7890", "(021) 555.1234") gone, and a country code written
// "+62" ("62 812…" becomes "+62812…"); a local number keeps its 0.
func NormalizePhone(s string) string {
	s = strings.Map(func(r rune) rune {
		switch r {
		case ' ', '-', '.', '(', ')', '\u00a0', '\t':
			return -1
		}
		return r
	}, strings.TrimSpace(s))
	if strings.HasPrefix(s, "62") {
		s = "+" + s
	}
	return s
}

// CheckPhone adds the problem of a normalised phone number to l: empty is none; else an
// Indonesian number (+62… or 0…). It reports whether the number is fine.
func CheckPhone(l *problem.List, phone string) bool {
	if phone != "" && !phonePattern.MatchString(phone) {
		l.Add(FieldPhone, KeyPhone)
		return false
	}
	return true
}

// CheckEmail adds the problem of a trimmed e-mail address to l: empty is none; else a
// bare address (no display name) with a dotted domain, at most MaxEmailLen characters.
func CheckEmail(l *problem.List, email string) bool {
	if email != "" && !validEmail(email) {
		l.Add(FieldEmail, KeyEmail)
		return false
	}
	return true
}

// validEmail accepts a bare address (no display name) with a dotted domain.
func validEmail(s string) bool {
	if len(s) > MaxEmailLen {
		return false
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || a.Name != "" {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	return at > 0 && strings.Contains(s[at+1:], ".") && !strings.ContainsAny(s, " \t")
}

// CheckText adds the problem of a cleaned free-text field to l: required when asked, at
// most max characters.
func CheckText(l *problem.List, field, s string, required bool, max int) bool {
	switch {
	case s == "" && required:
		l.Add(field, "form.required")
	case utf8.RuneCountInString(s) > max:
		l.Add(field, "form.too_long", max)
	default:
		return true
	}
	return false
}

// Input is a student as typed in a form or a sheet row.
type Input struct {
	NIS, Name, KeyName, Phone, Email, Class string
}

// Clean trims what was typed, folds inner runs of spaces in the name and the class and
// normalises the phone number, without judging any of it.
func (in Input) Clean() Input {
	return Input{
		NIS: strings.TrimSpace(in.NIS), Name: CleanName(in.Name), KeyName: strings.TrimSpace(in.KeyName),
		Phone: NormalizePhone(in.Phone), Email: strings.TrimSpace(in.Email), Class: CleanName(in.Class),
	}
}

// Validate applies every rule of a student and returns the record to send: cleaned (see
// Clean), with the recommended NIS kind when none was given. The list is empty when the
// input is valid.
func Validate(in Input) (billing.Student, problem.List) {
	in = in.Clean()
	if in.KeyName == "" {
		in.KeyName = billing.DefaultKeyName
	}
	var l problem.List
	CheckNIS(&l, FieldNIS, in.NIS)
	CheckText(&l, FieldName, in.Name, true, MaxNameLen)
	CheckText(&l, FieldKeyName, in.KeyName, false, MaxKeyNameLen)
	CheckPhone(&l, in.Phone)
	CheckEmail(&l, in.Email)
	CheckText(&l, FieldClass, in.Class, false, MaxClassLen)
	return billing.Student{NIS: in.NIS, Name: in.Name, KeyName: in.KeyName, Phone: in.Phone, Email: in.Email, Description: in.Class}, l
}
