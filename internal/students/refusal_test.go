package students_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/students"
)

// The service's refusal of a student's details is read in one place: its words by the
// form's field, and an existing NIS whatever words it used.
func TestReadRefusal(t *testing.T) {
	t.Parallel()
	refusal := func(desc string, items ...billing.ItemError) error {
		return fmt.Errorf("billing: POST /student: %w", &billing.APIError{StatusCode: 400, StatusDesc: desc, Items: items})
	}
	tests := []struct {
		name   string
		err    error
		fields map[string]string
		exists bool
	}{
		{"a NIS taken, on the field", refusal("", billing.ItemError{Field: "bill_key_value", Message: "already exists"}), map[string]string{}, true},
		{"a NIS taken, in the status", refusal("Student Already EXISTS"), map[string]string{}, true},
		{"a field refused", refusal("invalid", billing.ItemError{Field: "phone", Message: "bad phone"}, billing.ItemError{Field: "other", Message: "x"}),
			map[string]string{students.FieldPhone: "bad phone"}, false},
		{"a NIS refused for another reason", refusal("", billing.ItemError{Field: "bill_key_value", Message: "too long"}),
			map[string]string{students.FieldNIS: "too long"}, false},
		{"not the service's answer", errors.New("connection reset"), map[string]string{}, false},
	}
	for _, tt := range tests {
		r := students.ReadRefusal(tt.err)
		if r.Exists != tt.exists || !maps.Equal(r.Fields, tt.fields) {
			t.Errorf("%s: %+v, want fields %v, exists %v", tt.name, r, tt.fields, tt.exists)
		}
	}
}

// A refusal whose words say nothing clear is settled by reading the NIS at the service.
func TestRefusedAsksTheService(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	c, db := setup(t, now)
	svc := &students.Service{DB: db, Billing: c, Clock: clock.Fixed(now, jakarta)}
	if _, err := c.CreateStudents(ctx, []billing.Student{{NIS: "7", Name: "Ani"}}); err != nil {
		t.Fatal(err)
	}
	vague := fmt.Errorf("billing: %w", &billing.APIError{StatusCode: 400, StatusDesc: "rejected"})
	if r := svc.Refused(ctx, "7", vague); !r.Exists {
		t.Error("an existing NIS refused in vague words is not said to exist")
	}
	if r := svc.Refused(ctx, "8", vague); r.Exists {
		t.Error("a NIS the service does not know is said to exist")
	}
}
