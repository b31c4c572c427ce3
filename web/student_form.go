package web

import (
	"context"
	"net/http"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/students"
	"github.com/sekolah/portal/views/components"
	"github.com/sekolah/portal/views/pages"
)

// keyNameOptions are the NIS kinds the form offers, plus the student's own when it is
// another text the service accepted.
func keyNameOptions(current string) []components.Option {
	var opts []components.Option
	found := false
	for _, k := range students.KeyNames {
		opts = append(opts, components.Option{Value: k, Label: k})
		found = found || k == current
	}
	if current != "" && !found {
		opts = append(opts, components.Option{Value: current, Label: current})
	}
	return opts
}

// studentFormFrom reads the posted student form as typed.
func studentFormFrom(r *http.Request) pages.StudentForm {
	return pages.StudentForm{
		NIS: r.PostFormValue("nis"), Name: r.PostFormValue("name"), KeyName: r.PostFormValue("key_name"),
		Phone: r.PostFormValue("phone"), Email: r.PostFormValue("email"), Description: components.ClassChosen("description", r.PostForm),
		Errors: map[string]string{},
	}
}

// validateStudentForm applies the student rules and puts each problem beside its field.
func validateStudentForm(ctx context.Context, f *pages.StudentForm) billing.Student {
	s, probs := students.Validate(students.Input{
		NIS: f.NIS, Name: f.Name, KeyName: f.KeyName, Phone: f.Phone, Email: f.Email, Class: f.Description,
	})
	f.Errors = problemMessages(ctx, probs)
	return s
}
