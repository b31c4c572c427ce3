package students

import (
	"context"
	"errors"
	"strings"

	"github.com/sekolah/portal/internal/billing"
)

// serviceFields are the service's names of a student's fields, by the form's.
var serviceFields = map[string]string{
	"bill_key_value": FieldNIS, "name": FieldName, "bill_key_name": FieldKeyName,
	"phone": FieldPhone, "email": FieldEmail, "description": FieldClass,
}

// Refusal is the service's refusal of a student's details, read once: what it said of
// each of the form's fields, and whether it says the NIS is taken.
type Refusal struct {
	// Fields are the service's own words, by the form's field they are about.
	Fields map[string]string
	// Exists: the service already has a student with that NIS.
	Exists bool
}

// ReadRefusal reads err, the service's answer to a student's creation or change. An
// existing NIS is recognised whatever words the service used for it ("already exists",
// "exist"), on the NIS or in the status.
func ReadRefusal(err error) Refusal {
	r := Refusal{Fields: map[string]string{}}
	var apiErr *billing.APIError
	if !errors.As(err, &apiErr) {
		return r
	}
	for _, it := range apiErr.Items {
		field, ok := serviceFields[it.Field]
		switch {
		case !ok:
		case field == FieldNIS && saysExists(it.Message):
			r.Exists = true
		default:
			r.Fields[field] = it.Message
		}
	}
	if saysExists(apiErr.StatusDesc) {
		r.Exists = true
	}
	return r
}

func saysExists(s string) bool { return strings.Contains(strings.ToLower(s), "exist") }

// Refused reads the service's refusal of a new student nis (ReadRefusal); when its words
// name neither a field nor an existing NIS, a read of the NIS settles whether it exists.
func (s *Service) Refused(ctx context.Context, nis string, err error) Refusal {
	r := ReadRefusal(err)
	if !r.Exists && len(r.Fields) == 0 {
		r.Exists, _ = s.AtService(ctx, nis)
	}
	return r
}
