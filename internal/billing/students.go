package billing

import (
	"context"
	"net/http"
	"net/url"
)

// DefaultKeyName is sent as bill_key_name when a Student leaves KeyName empty.
const DefaultKeyName = "NIS"

// Student is a student record; NIS is the service's bill_key_value.
type Student struct {
	NIS         string // bill_key_value
	Name        string // name
	KeyName     string // bill_key_name; "NIS" when empty
	Phone       string
	Email       string
	Description string
}

// CreateStudents creates all the students or none (POST /bill/batch); a
// rejected batch is an *APIError whose Items say which ones and why.
func (c *Client) CreateStudents(ctx context.Context, students []Student) ([]Student, error) {
	list := make([]wireStudent, len(students))
	for i, s := range students {
		list[i] = s.wire()
	}
	in := struct {
		List []wireStudent `json:"bill_list"`
	}{list}
	var out []readStudent
	if err := c.call(ctx, http.MethodPost, "/bill/batch", nil, in, &out); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		// Created, but the service sent no data back: they are as sent.
		out = make([]readStudent, len(list))
		for i, w := range list {
			out[i] = w.read()
		}
	}
	created := make([]Student, len(out))
	for i, r := range out {
		created[i] = r.student()
	}
	return created, nil
}

// Student fetches one student (GET /bill/{NIS}); ErrNotFound when unknown.
func (c *Client) Student(ctx context.Context, nis string) (Student, error) {
	if nis == "" {
		return Student{}, invalidInput("empty NIS")
	}
	var out readStudent
	if err := c.call(ctx, http.MethodGet, "/bill/"+url.PathEscape(nis), nil, nil, &out); err != nil {
		return Student{}, err
	}
	return out.student(), nil
}

// UpdateStudent replaces the record of s.NIS (PUT /bill) as a whole: send
// the fields to keep too (an empty Phone leaves the student without one).
func (c *Client) UpdateStudent(ctx context.Context, s Student) (Student, error) {
	in := s.wire()
	var out readStudent
	if err := c.call(ctx, http.MethodPut, "/bill", nil, in, &out); err != nil {
		return Student{}, err
	}
	if out.NIS == "" {
		out = in.read() // updated, but no data came back
	}
	return out.student(), nil
}

// DeleteStudent removes a student and their unpaid components
// (DELETE /bill/{NIS}); the service refuses (400) once one is paid.
func (c *Client) DeleteStudent(ctx context.Context, nis string) error {
	if nis == "" {
		return invalidInput("empty NIS")
	}
	return c.call(ctx, http.MethodDelete, "/bill/"+url.PathEscape(nis), nil, nil, nil)
}
