// Package students holds the rules of the portal's students area: the checks the billing
// service applies to a student and to bill components (run before the call, so a person
// sees every mistake at once and beside its field), the totals shown per student, and the
// roster sync job.
//
// Nothing here knows HTTP or templates: problems are codes the web layer translates.
package students

import (
	"net/mail"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/sekolah/portal/internal/billing"
)

// Problem is what is wrong with one field, as a code the web layer translates.
type Problem string

// The problems a field can have.
const (
	ProblemRequired       Problem = "required"
	ProblemTooLong        Problem = "too_long"
	ProblemNIS            Problem = "nis"              // not 1–32 of [A-Za-z0-9.-]
	ProblemPhone          Problem = "phone"            // not an Indonesian phone number
	ProblemEmail          Problem = "email"            // not an email address
	ProblemAmount         Problem = "amount"           // not a whole number of rupiah
	ProblemPositive       Problem = "positive"         // must be > 0
	ProblemNegative       Problem = "negative"         // must be >= 0
	ProblemTooLarge       Problem = "too_large"        // above i18n.MaxRupiah
	ProblemDate           Problem = "date"             // not a calendar day
	ProblemDueAfterExpiry Problem = "due_after_expiry" // due day later than expiry day
	ProblemActiveAfterDue Problem = "active_after_due" // active day later than due day
	ProblemAccount        Problem = "account"          // not one of the service's account codes
)

// FieldErrors maps a form field to its problem; empty means valid.
type FieldErrors map[string]Problem

// Fields of the student form, as FieldErrors keys.
const (
	FieldNIS         = "nis"
	FieldName        = "name"
	FieldKeyName     = "key_name"
	FieldPhone       = "phone"
	FieldEmail       = "email"
	FieldDescription = "description"
)

// MaxLen is the longest text each student field accepts (in characters), for the
// too-long message.
var MaxLen = map[string]int{
	FieldNIS:         32,
	FieldName:        150,
	FieldKeyName:     50,
	FieldPhone:       20,
	FieldEmail:       254,
	FieldDescription: 100,
}

// ComponentMaxLen is the longest text each component column accepts (in characters).
var ComponentMaxLen = map[string]int{ColName: 100, ColNotes: 255}

// KeyNames are the NIS kinds the form offers; the service accepts any non-empty text and
// recommends the first.
var KeyNames = []string{billing.DefaultKeyName, "Nomor Induk Siswa"}

// nisPattern is the service's shape of a student number.
var nisPattern = regexp.MustCompile(`^[A-Za-z0-9.-]{1,32}$`)

// phonePattern is an Indonesian number once spaces, dashes, dots and brackets are gone:
// 0 or +62/62, then 7 to 13 digits not starting with 0 (0812…, +62 21 …).
var phonePattern = regexp.MustCompile(`^(?:\+62|62|0)[1-9][0-9]{6,12}$`)

// StudentInput is the student form as typed.
type StudentInput struct {
	NIS, Name, KeyName, Phone, Email, Description string
}

// ValidateStudent applies the service's rules for a student (and ours for phone and
// email) and returns the record to send, trimmed and with the phone's separators
// removed. errs is empty when the input is valid.
func ValidateStudent(in StudentInput) (billing.Student, FieldErrors) {
	errs := FieldErrors{}
	s := billing.Student{
		NIS:         strings.TrimSpace(in.NIS),
		Name:        strings.Join(strings.Fields(in.Name), " "),
		KeyName:     strings.TrimSpace(in.KeyName),
		Phone:       NormalizePhone(in.Phone),
		Email:       strings.TrimSpace(in.Email),
		Description: strings.TrimSpace(in.Description),
	}
	if s.KeyName == "" {
		s.KeyName = billing.DefaultKeyName
	}
	switch {
	case s.NIS == "":
		errs[FieldNIS] = ProblemRequired
	case !nisPattern.MatchString(s.NIS):
		errs[FieldNIS] = ProblemNIS
	}
	if s.Name == "" {
		errs[FieldName] = ProblemRequired
	}
	if s.Phone != "" && !phonePattern.MatchString(s.Phone) {
		errs[FieldPhone] = ProblemPhone
	}
	if s.Email != "" && !validEmail(s.Email) {
		errs[FieldEmail] = ProblemEmail
	}
	for field, v := range map[string]string{FieldName: s.Name, FieldKeyName: s.KeyName, FieldEmail: s.Email, FieldDescription: s.Description} {
		if _, bad := errs[field]; !bad && utf8.RuneCountInString(v) > MaxLen[field] {
			errs[field] = ProblemTooLong
		}
	}
	return s, errs
}

// NormalizePhone drops the separators people type in phone numbers ("0812-3456 7890",
// "(021) 555.1234") and keeps a leading +.
func NormalizePhone(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '-', '.', '(', ')', '\u00a0':
			return -1
		}
		return r
	}, strings.TrimSpace(s))
}

// validEmail accepts a bare address (no display name) with a dotted domain.
func validEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || a.Name != "" {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	return at > 0 && strings.Contains(s[at+1:], ".") && !strings.ContainsAny(s, " \t")
}

// ValidNIS reports whether s has the service's shape of a student number.
func ValidNIS(s string) bool { return nisPattern.MatchString(s) }
