package students

import (
	"context"

	"github.com/sekolah/portal/internal/billing"
)

// Refusal is the service's refusal of a student's details, read once: what it said of
// each of the form's fields, and whether it says the NIS is taken.
type Refusal struct {
	// Fields are the service's own words, by the form's field they are about.
	Fields map[string]string
	// Exists: the service already has a student with that NIS.
	Exists bool
}

// ReadRefusal reads err, the service's answer to a student's creation or change, through
// the billing client's one reading of refusals (APIError.Duplicate, Problems): a duplicate
// is the NIS taken, any other problem goes beside the form field it names.
func ReadRefusal(err error) Refusal {
	r := Refusal{Fields: map[string]string{}}
	apiErr, ok := billing.AsAPIError(err)
	if !ok {
		return r
	}
	r.Exists = apiErr.Duplicate() // one student: the NIS is what can exist already
	for _, it := range apiErr.Problems() {
		field, ok := FieldOf(it.Field)
		if !ok || it.Reason == billing.ReasonDuplicate {
			continue
		}
		r.Fields[field] = it.Message
	}
	return r
}

// Refused reads the service's refusal of a new student nis (ReadRefusal); when its words
// name neither a field nor an existing NIS, a read of the NIS settles whether it exists.
func (s *Service) Refused(ctx context.Context, nis string, err error) Refusal {
	r := ReadRefusal(err)
	if !r.Exists && len(r.Fields) == 0 {
		r.Exists, _ = s.AtService(ctx, nis)
	}
	return r
}
