package sandbox

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// envelope is the body of every response.
type envelope struct {
	Status     string `json:"status"`
	StatusCode int    `json:"status_code"`
	StatusDesc string `json:"status_desc"`
	Data       any    `json:"data"`
}

// problem is one invalid field of a request; Index is the item of the list
// (-1 for a field outside the list).
type problem struct {
	Index   int    `json:"index"`
	Field   string `json:"field"`
	Message string `json:"message"`
}

// apiError is a failure answered with its status; problems, when present,
// become the data of a 400.
type apiError struct {
	code     int
	desc     string
	problems []problem
}

func (e *apiError) Error() string { return fmt.Sprintf("%d %s", e.code, e.desc) }

func errorf(code int, format string, args ...any) *apiError {
	return &apiError{code: code, desc: fmt.Sprintf(format, args...)}
}

// invalid turns the problems of a list request into a 400 whose description
// names the first one with its index, e.g. "bill_upload_list[3].due_date: required".
func invalid(list string, problems []problem) *apiError {
	p := problems[0]
	desc := p.Field + ": " + p.Message
	switch {
	case p.Index >= 0 && p.Field == list:
		desc = fmt.Sprintf("%s[%d]: %s", list, p.Index, p.Message)
	case p.Index >= 0:
		desc = fmt.Sprintf("%s[%d].%s", list, p.Index, desc)
	}
	if n := len(problems) - 1; n > 0 {
		desc += fmt.Sprintf(" (and %d more)", n)
	}
	return &apiError{code: http.StatusBadRequest, desc: desc, problems: problems}
}

// invalidOne turns the problems of a single-record request (index -1) into a
// 400 naming the first field; data stays null, as on every non-batch error.
func invalidOne(problems []problem) *apiError {
	p := problems[0]
	desc := p.Field + ": " + p.Message
	if n := len(problems) - 1; n > 0 {
		desc += fmt.Sprintf(" (and %d more)", n)
	}
	return &apiError{code: http.StatusBadRequest, desc: desc}
}

// writeJSON writes the envelope; a nil data is sent as null.
func writeJSON(w http.ResponseWriter, code int, desc string, data any) {
	b, err := json.Marshal(envelope{Status: http.StatusText(code), StatusCode: code, StatusDesc: desc, Data: data})
	if err != nil {
		code = http.StatusInternalServerError
		b, _ = json.Marshal(envelope{Status: http.StatusText(code), StatusCode: code, StatusDesc: "internal error"})
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_, _ = w.Write(append(b, '\n'))
}

// writeError answers an apiError, or a 500 for anything else (logged here,
// at the edge, without the request body).
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	if e, ok := err.(*apiError); ok {
		var data any
		if e.problems != nil {
			data = e.problems
		}
		writeJSON(w, e.code, e.desc, data)
		return
	}
	s.log.Error("sandbox: request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	writeJSON(w, http.StatusInternalServerError, "internal error", nil)
}
