package registration

import (
	"slices"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/internal/students"
)

// Applicant is the student being registered, as typed (cleaned by Clean).
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

// MaxContactNameLen is the longest name of a parent or guardian, in characters: a
// person's name, as long as a student's.
const MaxContactNameLen = students.MaxNameLen

// FieldContactName is the public form's field of the parent or guardian.
const FieldContactName = "contact_name"

// Clean trims what was typed, folds inner runs of spaces in names and normalises the
// phone number, the way the student rules do for every form.
func (a Applicant) Clean() Applicant {
	in := a.input().Clean()
	return Applicant{NIS: in.NIS, Name: in.Name, Phone: in.Phone, Email: in.Email, Description: in.Class,
		ContactName: students.CleanName(a.ContactName)}
}

func (a Applicant) input() students.Input {
	return students.Input{NIS: a.NIS, Name: a.Name, Phone: a.Phone, Email: a.Email, Class: a.Description}
}

// Student is the billing service's record of the applicant.
func (a Applicant) Student() billing.Student {
	return billing.Student{NIS: a.NIS, Name: a.Name, Phone: a.Phone, Email: a.Email, Description: a.Description}
}

// Validate checks a cleaned applicant with the student rules. The public form also needs
// a parent or guardian and a phone number, so the school can reach the family; it asks
// for no number (the school gives its own, PublicNumber), so none is checked.
func (a Applicant) Validate(public bool) problem.List {
	_, l := students.Validate(a.input())
	if public {
		l = slices.DeleteFunc(l, func(p problem.Problem) bool { return p.Field == students.FieldNIS })
		students.CheckText(&l, FieldContactName, a.ContactName, true, MaxContactNameLen)
		if a.Phone == "" {
			l.Add(students.FieldPhone, "form.required")
		}
	}
	return l
}

// IsNISTaken reports whether the billing service refused a checkout because the NIS
// already exists (the only record a checkout creates that can exist already), as the
// billing client reads its refusals (billing.APIError.Duplicate).
func IsNISTaken(err error) bool {
	apiErr, ok := billing.AsAPIError(err)
	return ok && apiErr.Duplicate()
}
