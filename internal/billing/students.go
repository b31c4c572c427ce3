package billing

import (
	"context"
	"iter"
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
	if err := c.call(ctx, "CreateStudents", http.MethodPost, "/bill/batch", nil, in, &out); err != nil {
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

// CreateStudent creates one student (POST /bill); an existing NIS is
// ErrValidation.
func (c *Client) CreateStudent(ctx context.Context, s Student) (Student, error) {
	in := s.wire()
	var out readStudent
	if err := c.call(ctx, "CreateStudent", http.MethodPost, "/bill", nil, in, &out); err != nil {
		return Student{}, err
	}
	if out.NIS == "" {
		out = in.read() // created, but no data came back
	}
	return out.student(), nil
}

// StudentQuery filters the student list; zero fields are left out.
type StudentQuery struct {
	Name   string // a case-insensitive part of the name
	NIS    string // an exact NIS
	Offset int    // below 0 is sent as 0
	Limit  int    // 0: the service's default (50); above MaxStudentLimit is sent as MaxStudentLimit
}

func (q StudentQuery) values() url.Values {
	v := url.Values{}
	if q.Name != "" {
		v.Set("name", q.Name)
	}
	if q.NIS != "" {
		v.Set("bill_key", q.NIS)
	}
	setPage(v, q.Offset, q.Limit, MaxStudentLimit)
	return v
}

// ListStudents lists students, newest first (GET /bill?name=&bill_key=&offset=&limit=).
func (c *Client) ListStudents(ctx context.Context, q StudentQuery) ([]Student, error) {
	return c.listStudents(ctx, "ListStudents", q)
}

// listStudents is ListStudents, its call named endpoint (AllStudents' pages are its own).
func (c *Client) listStudents(ctx context.Context, endpoint string, q StudentQuery) ([]Student, error) {
	var out []readStudent
	if err := c.call(ctx, endpoint, http.MethodGet, "/bill", q.values(), nil, &out); err != nil {
		return nil, err
	}
	list := make([]Student, len(out))
	for i, r := range out {
		list[i] = r.student()
	}
	return list, nil
}

// AllStudents yields every student matching q across pages, newest first,
// starting at q.Offset (q.Limit per page, MaxStudentLimit when unset); paging
// ends on an empty page, as for All. On an error it yields the error and stops.
func (c *Client) AllStudents(ctx context.Context, q StudentQuery) iter.Seq2[Student, error] {
	fetch := func(offset, limit int) ([]Student, int, error) {
		q.Offset, q.Limit = offset, limit
		list, err := c.listStudents(ctx, "AllStudents", q)
		return list, len(list), err
	}
	return pages(c, "/bill", q.Offset, q.Limit, MaxStudentLimit, fetch, func(s Student) string { return s.NIS })
}

// Student fetches one student (GET /bill/{NIS}); ErrNotFound when unknown.
func (c *Client) Student(ctx context.Context, nis string) (Student, error) {
	if nis == "" {
		return Student{}, invalidInput("empty NIS")
	}
	var out readStudent
	if err := c.call(ctx, "Student", http.MethodGet, "/bill/"+url.PathEscape(nis), nil, nil, &out); err != nil {
		return Student{}, err
	}
	return out.student(), nil
}

// UpdateStudent replaces the record of s.NIS (PUT /bill) as a whole: send
// the fields to keep too (an empty Phone leaves the student without one).
func (c *Client) UpdateStudent(ctx context.Context, s Student) (Student, error) {
	in := s.wire()
	var out readStudent
	if err := c.call(ctx, "UpdateStudent", http.MethodPut, "/bill", nil, in, &out); err != nil {
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
	return c.call(ctx, "DeleteStudent", http.MethodDelete, "/bill/"+url.PathEscape(nis), nil, nil, nil)
}
