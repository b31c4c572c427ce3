package billing

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"

	"github.com/sekolah/portal/internal/sandbox"
)

// kinds is what the classification says of an error, in one comparable value.
type kinds struct {
	NotFound, Unauthorized, Validation, Unavailable, MayBeApplied, Duplicate bool
}

func kindsOf(e *APIError) kinds {
	return kinds{e.NotFound(), e.Unauthorized(), e.Validation(), e.Unavailable(), e.MayBeApplied(), e.Duplicate()}
}

// The sandbox's real answers, over HTTP, each read once: its kind and the problems it
// names (item, field, reason).
func TestClassifySandboxAnswers(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	if _, err := e.c.CreateStudents(ctx, []Student{{NIS: "2026001", Name: "Ani"}, {NIS: "2026002", Name: "Budi"}}); err != nil {
		t.Fatal(err)
	}
	comps, err := e.c.CreateComponents(ctx, []ComponentInput{
		{NIS: "2026001", AccountCode: "SPP", Name: "SPP Januari", Due: day(2026, 1, 20), Expiry: day(2026, 2, 20), Amount: 100_000},
		{NIS: "2026001", AccountCode: "SPP", Name: "SPP Lama", Due: day(2025, 11, 1), Expiry: day(2025, 12, 1), Amount: 100_000},
	})
	if err != nil {
		t.Fatal(err)
	}
	paid, expired := comps[0].ComponentID, comps[1].ComponentID
	if _, err := e.c.Pay(ctx, Payment{NIS: "2026001", ComponentIDs: []string{paid}}); err != nil {
		t.Fatal(err)
	}
	wrongUser, err := New(Config{BaseURL: e.ts.URL, Username: testUser, Password: "wrong", Now: e.srv.Now, MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	validation := kinds{Validation: true}
	duplicate := kinds{Validation: true, Duplicate: true}
	tests := []struct {
		name     string
		call     func() error
		want     kinds
		problems []Problem
	}{
		{"a batch with an existing NIS (data list)", func() error {
			_, err := e.c.CreateStudents(ctx, []Student{{NIS: "2026009", Name: "Cici"}, {NIS: "2026002", Name: "Budi"}})
			return err
		}, duplicate, []Problem{{Index: 1, Field: FieldNIS, Message: "2026002 already exists", Reason: ReasonDuplicate}}},
		{"one student with an existing NIS (status_desc only)", func() error {
			_, err := e.c.CreateStudent(ctx, Student{NIS: "2026001", Name: "Ani"})
			return err
		}, duplicate, []Problem{{Index: -1, Field: FieldNIS, Message: "2026001 already exists", Reason: ReasonDuplicate}}},
		{"a checkout of an existing NIS", func() error {
			_, err := e.c.Checkout(ctx, Checkout{Student: Student{NIS: "2026002", Name: "Budi"}, Components: []CheckoutComponent{
				{AccountCode: "SPP", Name: "Uang pangkal", Due: day(2026, 1, 20), Expiry: day(2026, 2, 20), Amount: 1_000_000}}})
			return err
		}, duplicate, []Problem{{Index: -1, Field: FieldNIS, Message: "2026002 already exists", Reason: ReasonDuplicate}}},
		{"a component of an unknown account code", func() error {
			_, err := e.c.CreateComponents(ctx, []ComponentInput{
				{NIS: "2026001", AccountCode: "SPP", Name: "A", Due: day(2026, 1, 20), Expiry: day(2026, 2, 20), Amount: 1},
				{NIS: "2026001", AccountCode: "NOPE", Name: "B", Due: day(2026, 1, 20), Expiry: day(2026, 2, 20), Amount: 1}})
			return err
		}, validation, nil},
		{"paying a paid and an expired component", func() error {
			_, err := e.c.Pay(ctx, Payment{NIS: "2026001", ComponentIDs: []string{paid, expired}})
			return err
		}, validation, []Problem{
			{Index: 0, Field: FieldComponentList, Message: "already paid", Reason: ReasonPaid},
			{Index: 1, Field: FieldComponentList, Message: "expired, cannot be paid", Reason: ReasonExpired}}},
		{"deleting a paid component", func() error {
			_, err := e.c.DeleteComponents(ctx, ComponentDeletion{ComponentIDs: []string{paid}})
			return err
		}, validation, nil},
		{"an unknown student", func() error { _, err := e.c.Student(ctx, "9999999"); return err }, kinds{NotFound: true}, nil},
		{"a wrong password", func() error { _, err := wrongUser.Student(ctx, "2026001"); return err }, kinds{Unauthorized: true}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			apiErr, ok := AsAPIError(err)
			if !ok {
				t.Fatalf("not an answer of the service: %v", err)
			}
			if got := kindsOf(apiErr); got != tt.want {
				t.Errorf("kinds %+v, want %+v (%v)", got, tt.want, err)
			}
			if errors.Is(err, ErrValidation) != apiErr.Validation() || errors.Is(err, ErrNotFound) != apiErr.NotFound() {
				t.Errorf("errors.Is and the methods disagree: %v", err)
			}
			got := apiErr.Problems()
			switch {
			case tt.problems != nil && !slices.Equal(got, tt.problems):
				t.Errorf("problems\n%+v\nwant\n%+v", got, tt.problems)
			case tt.want.Validation && len(got) == 0:
				t.Errorf("a refusal names no problem: %v", err)
			case !tt.want.Validation && len(got) != 0:
				t.Errorf("a %d names problems: %+v", apiErr.StatusCode, got)
			}
		})
	}
	// Every problem of the rejected components batch is the second item's account code.
	_, err = e.c.CreateComponents(ctx, []ComponentInput{
		{NIS: "2026001", AccountCode: "SPP", Name: "A", Due: day(2026, 1, 20), Expiry: day(2026, 2, 20), Amount: 1},
		{NIS: "2026001", AccountCode: "NOPE", Name: "B", Due: day(2026, 1, 20), Expiry: day(2026, 2, 20), Amount: 1}})
	apiErr, _ := AsAPIError(err)
	if ps := apiErr.Problems(); len(ps) != 1 || ps[0].Index != 1 || ps[0].Field != FieldAccount || ps[0].Reason != ReasonOther {
		t.Errorf("unknown account code: %+v", ps)
	}
	// A service that is down.
	e.srv.SetFaults(sandbox.Faults{ErrorRate: 1, Status: http.StatusServiceUnavailable})
	_, err = e.c.Pay(ctx, Payment{NIS: "2026001", ComponentIDs: []string{expired}})
	if apiErr, ok := AsAPIError(err); !ok || kindsOf(apiErr) != (kinds{Unavailable: true}) {
		t.Errorf("a 503: %v", err)
	}
}

// The looser answers the contract's Tolerance section allows (422 for 400, the failure in
// a 200's envelope, numbers as strings, no data list, other words) read the same way.
func TestClassifyLooserAnswers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		code     int
		body     string
		want     kinds
		problems []Problem
	}{
		{"422 with a data list of strings", 422,
			`{"status":"Unprocessable Entity","status_code":422,"status_desc":"invalid","data":[{"index":"2","field":"bill_key_value","message":"NIS Already Exists"}]}`,
			kinds{Validation: true, Duplicate: true}, []Problem{{Index: 2, Field: FieldNIS, Message: "NIS Already Exists", Reason: ReasonDuplicate}}},
		{"the failure inside a 200's envelope", 200,
			`{"status":"Bad Request","status_code":400,"status_desc":"bill_upload_list[3].due_date: required (and 2 more)","data":null}`,
			kinds{Validation: true}, []Problem{{Index: 3, Field: FieldDue, Message: "required", Reason: ReasonRequired}}},
		{"a list item without a field", 400,
			`{"status":"Bad Request","status_code":400,"status_desc":"bill_list[0]: must be an object","data":null}`,
			kinds{Validation: true}, []Problem{{Index: 0, Message: "must be an object"}}},
		{"a database's duplicate in plain words", 400,
			`{"status":"Bad Request","status_code":400,"status_desc":"Duplicate entry '2026001' for key 'bill_key_value'"}`,
			kinds{Validation: true, Duplicate: true}, []Problem{{Index: -1, Message: "Duplicate entry '2026001' for key 'bill_key_value'", Reason: ReasonDuplicate}}},
		{"Indonesian words", 400,
			`{"status":"Bad Request","status_code":400,"status_desc":"bill_key_value: NIS sudah terdaftar"}`,
			kinds{Validation: true, Duplicate: true}, []Problem{{Index: -1, Field: FieldNIS, Message: "NIS sudah terdaftar", Reason: ReasonDuplicate}}},
		{"a sentence with a colon names no field", 400,
			`{"status":"Bad Request","status_code":400,"status_desc":"Bad request: student already exist"}`,
			kinds{Validation: true, Duplicate: true}, []Problem{{Index: -1, Message: "Bad request: student already exist", Reason: ReasonDuplicate}}},
		{"409, which the contract does not give", 409, `{"status":"Conflict","status_code":409,"status_desc":"NIS already exists"}`,
			kinds{}, nil},
		{"400 without words", 400, `{"status":"Bad Request","status_code":400}`, kinds{Validation: true}, nil},
		{"not an envelope", 400, `bad request`, kinds{Validation: true}, nil},
		{"a gateway timeout", 504, `<html>Gateway Timeout</html>`, kinds{Unavailable: true, MayBeApplied: true}, nil},
		{"a disabled user", 403, `{"status":"Forbidden","status_code":403,"status_desc":"user disabled"}`, kinds{Unauthorized: true}, nil},
		{"not found in words that say exists", 404, `{"status":"Not Found","status_code":404,"status_desc":"bill_key_value: no student exists with it"}`,
			kinds{NotFound: true}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := fakeClient(t, func(w http.ResponseWriter, _ *http.Request) { reply(w, tt.code, tt.body) }, func(c *Config) { c.MaxAttempts = 1 })
			_, err := c.CreateStudents(context.Background(), []Student{{NIS: "2026001", Name: "Ani"}})
			apiErr, ok := AsAPIError(err)
			if !ok {
				t.Fatalf("not an answer of the service: %v", err)
			}
			if got := kindsOf(apiErr); got != tt.want {
				t.Errorf("kinds %+v, want %+v", got, tt.want)
			}
			if got := apiErr.Problems(); !slices.Equal(got, tt.problems) {
				t.Errorf("problems\n%+v\nwant\n%+v", got, tt.problems)
			}
		})
	}
}

// Each reason is read from the words the sandbox and a looser service use, and only
// from a message: a field named expiry_date is not an expired component.
func TestReasonsOfWords(t *testing.T) {
	t.Parallel()
	for msg, want := range map[string]Reason{
		"2026001 already exists": ReasonDuplicate,
		"already paid":           ReasonPaid,
		"paid, cannot be deleted; payment history is kept": ReasonPaid,
		"component c1 is paid and cannot be changed":       ReasonPaid,
		"deleted, cannot be paid":                          ReasonDeleted,
		"expired, cannot be paid":                          ReasonExpired,
		"not active yet":                                   ReasonNotActive,
		"required":                                         ReasonRequired,
		"must be on or after due_date":                     ReasonOther,
		"":                                                 ReasonOther,
	} {
		if got := reasonOf(msg); got != want {
			t.Errorf("%q: %v, want %v", msg, got, want)
		}
	}
	if p, _ := descProblem("bill_upload_list[4].expiry_date: must be on or after due_date"); p.Reason != ReasonOther || p.Field != FieldExpiry || p.Index != 4 {
		t.Errorf("expiry_date's problem %+v", p)
	}
}
