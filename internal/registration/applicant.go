package registration

import (
	"errors"
	"net/mail"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/sekolah/portal/internal/billing"
)

// Applicant is the student being registered, as typed (trimmed by Clean).
type Applicant struct {
	NIS         string
	Name        string
	Phone       string
	Email       string
	Description string // the class, e.g. "Kelas 7A"
	// ContactName is the parent or guardian (public form); the billing service has no
	// field for it, so only the portal's registration record keeps it.
	ContactName string
}

// Limits of an applicant's fields.
const (
	MaxStudentNameLen = 100
	MaxClassLen       = 100
)

// nisRE is the billing service's rule for a bill key (upstream contract).
var (
	nisRE   = regexp.MustCompile(`^[A-Za-z0-9.-]{1,32}$`)
	phoneRE = regexp.MustCompile(`^\+?[0-9][0-9 ()-]{5,19}$`)
)

// Clean trims what was typed and folds inner runs of spaces in names.
func (a Applicant) Clean() Applicant {
	return Applicant{
		NIS:         strings.TrimSpace(a.NIS),
		Name:        strings.Join(strings.Fields(a.Name), " "),
		Phone:       strings.TrimSpace(a.Phone),
		Email:       strings.TrimSpace(a.Email),
		Description: strings.Join(strings.Fields(a.Description), " "),
		ContactName: strings.Join(strings.Fields(a.ContactName), " "),
	}
}

// Student is the billing service's record of the applicant.
func (a Applicant) Student() billing.Student {
	return billing.Student{NIS: a.NIS, Name: a.Name, Phone: a.Phone, Email: a.Email, Description: a.Description}
}

// Validate checks a cleaned applicant. The public form also needs a parent or guardian and
// a phone number, so the school can reach the family.
func (a Applicant) Validate(public bool) Problems {
	var ps Problems
	switch {
	case a.NIS == "":
		ps.add("nis", "form.required")
	case !nisRE.MatchString(a.NIS):
		ps.add("nis", "registration.err.nis")
	}
	required(&ps, "name", a.Name, MaxStudentNameLen)
	if public {
		required(&ps, "contact_name", a.ContactName, MaxStudentNameLen)
	}
	switch {
	case a.Phone == "" && public:
		ps.add("phone", "form.required")
	case a.Phone != "" && !phoneRE.MatchString(a.Phone):
		ps.add("phone", "form.invalid_phone")
	}
	if a.Email != "" {
		if addr, err := mail.ParseAddress(a.Email); err != nil || addr.Address != a.Email || len(a.Email) > 254 {
			ps.add("email", "form.invalid_email")
		}
	}
	if utf8.RuneCountInString(a.Description) > MaxClassLen {
		ps.add("description", "form.too_long", MaxClassLen)
	}
	return ps
}

func required(ps *Problems, field, v string, max int) {
	switch {
	case v == "":
		ps.add(field, "form.required")
	case utf8.RuneCountInString(v) > max:
		ps.add(field, "form.too_long", max)
	}
}

// IsNISTaken reports whether the billing service refused a checkout because the NIS
// already exists: a 400 that names the bill key field.
func IsNISTaken(err error) bool {
	var apiErr *billing.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 {
		return false
	}
	for _, it := range apiErr.Items {
		if it.Field == "bill_key_value" && strings.Contains(it.Message, "exist") {
			return true
		}
	}
	return strings.HasPrefix(apiErr.StatusDesc, "bill_key_value") && strings.Contains(apiErr.StatusDesc, "exist")
}
