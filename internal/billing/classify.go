package billing

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
)

// The service's refusals are read here, once: what kind of failure an APIError is
// (Duplicate, NotFound, Validation, Unauthorized, Unavailable, MayBeApplied) and which
// item and field a 400 names, with what reason (Problems). Callers never match the
// service's words themselves: the words differ between the sandbox and the real service
// (the contract's Tolerance section), and a matcher written three times drifts three ways.

// Reason is what the service says is wrong with one item, read from its words.
type Reason int

// The reasons a refusal can give.
const (
	// ReasonOther is a reason no rule below recognises: show the service's message.
	ReasonOther Reason = iota
	// ReasonRequired: the field is missing or empty.
	ReasonRequired
	// ReasonDuplicate: the record already exists (a student's NIS, at create or checkout).
	ReasonDuplicate
	// ReasonPaid: the component is paid already (a payment, a change or a delete refused).
	ReasonPaid
	// ReasonExpired: the component expired and cannot be paid.
	ReasonExpired
	// ReasonNotActive: the component's active day has not come.
	ReasonNotActive
	// ReasonDeleted: the component was deleted.
	ReasonDeleted
)

// The fields of the service's records as a refusal names them (the contract's records).
const (
	FieldNIS         = "bill_key_value"
	FieldKeyName     = "bill_key_name"
	FieldName        = "name"
	FieldPhone       = "phone"
	FieldEmail       = "email"
	FieldDescription = "description"

	FieldComponentName = "bill_component_name"
	FieldAccount       = "account_code"
	FieldAmount        = "amount"
	FieldPenalty       = "penalty_amount"
	FieldDue           = "due_date"
	FieldExpiry        = "expiry_date"
	FieldActive        = "active_date"
	FieldNotes         = "notes"
	FieldComponentID   = "bill_component_id"
	FieldStudentKey    = "bill_key"
	// FieldComponentList is a payment's list of components: a problem with it names the
	// component by its index in the list.
	FieldComponentList = "bill_component_list"
)

// Problem is one thing a refusal says is wrong.
type Problem struct {
	// Index is the item of the request's list the problem is about; -1 when it is about
	// the request itself (a single record, or a field outside the list).
	Index int
	// Field is the field as the service names it (FieldNIS, FieldDue, ...); "" when the
	// refusal names none.
	Field string
	// Message is the service's own words about it.
	Message string
	// Reason is what those words mean.
	Reason Reason
}

// AsAPIError is err's service answer, when the service answered with a failure.
func AsAPIError(err error) (*APIError, bool) {
	var apiErr *APIError
	ok := errors.As(err, &apiErr)
	return apiErr, ok
}

// NotFound: the student or component does not exist (404).
func (e *APIError) NotFound() bool { return e.StatusCode == 404 }

// Unauthorized: the credentials were refused (401) or the user is disabled (403).
func (e *APIError) Unauthorized() bool { return e.StatusCode == 401 || e.StatusCode == 403 }

// Validation: the service refused the request's content (400, 406, and 422, which the
// contract's Tolerance section reads like 400). Nothing was applied.
func (e *APIError) Validation() bool {
	return e.StatusCode == 400 || e.StatusCode == 406 || e.StatusCode == 422
}

// Unavailable: the service failed or is down (500-504).
func (e *APIError) Unavailable() bool { return e.StatusCode >= 500 && e.StatusCode <= 504 }

// MayBeApplied: a gateway answered that it gave up waiting for the service (502, 504),
// so the request may have reached it and been applied; read before sending it again.
func (e *APIError) MayBeApplied() bool { return e.StatusCode == 502 || e.StatusCode == 504 }

// Duplicate: the request was refused because a record it creates already exists (a
// NIS at a student's create or a checkout), as a problem's words say.
func (e *APIError) Duplicate() bool {
	for _, p := range e.Problems() {
		if p.Reason == ReasonDuplicate {
			return true
		}
	}
	return false
}

// DuplicateAt reports whether item i of the request (-1: the request itself) is refused
// as already existing.
func (e *APIError) DuplicateAt(i int) bool {
	for _, p := range e.Problems() {
		if p.Reason == ReasonDuplicate && p.Index == i {
			return true
		}
	}
	return false
}

// Problems are what a refusal names: its data list when it has one (index, field and
// message of each item), else what its status_desc says ("bill_upload_list[3].due_date:
// required", "bill_key_value: 2024001 already exists", or plain words, which name no
// field). Nil for a failure that is not a refusal of the request's content.
func (e *APIError) Problems() []Problem {
	if !e.Validation() {
		return nil
	}
	if len(e.Items) > 0 {
		out := make([]Problem, len(e.Items))
		for i, it := range e.Items {
			out[i] = Problem{Index: it.Index, Field: it.Field, Message: it.Message, Reason: reasonOf(it.Message)}
		}
		return out
	}
	if p, ok := descProblem(e.StatusDesc); ok {
		return []Problem{p}
	}
	return nil
}

// more is the tail a status_desc gives when the data list has further problems.
var more = regexp.MustCompile(`\s*\(and \d+ more\)\s*$`)

// descPath reads "list[3].field: message", "list[3]: message" and "field: message"; a
// field is one word (letters, digits, _ and .), so "Bad request: ..." names none.
var descPath = regexp.MustCompile(`^(?:[A-Za-z_]\w*\[(\d+)\])?\.?([A-Za-z_][\w.]*)?\s*:\s*(.+)$`)

// descProblem reads the one problem a status_desc names.
func descProblem(desc string) (Problem, bool) {
	desc = strings.TrimSpace(more.ReplaceAllString(desc, ""))
	if desc == "" {
		return Problem{}, false
	}
	p := Problem{Index: -1, Message: desc}
	if m := descPath.FindStringSubmatch(desc); m != nil && (m[1] != "" || m[2] != "") {
		if m[1] != "" {
			p.Index, _ = strconv.Atoi(m[1])
		}
		p.Field, p.Message = m[2], strings.TrimSpace(m[3])
	}
	p.Reason = reasonOf(p.Message)
	return p, true
}

// reasonWords are the words each reason is said with, lower case: the sandbox's, and the
// ones a real service (the provider's is Indonesian) or its database may use instead.
var reasonWords = []struct {
	reason Reason
	words  []string
}{
	{ReasonDuplicate, []string{"already exist", "already registered", "already taken", "duplicate", "sudah ada", "sudah terdaftar"}},
	{ReasonPaid, []string{"already paid", "is paid", "paid, cannot", "sudah dibayar", "sudah lunas"}},
	{ReasonDeleted, []string{"deleted", "dihapus"}},
	{ReasonExpired, []string{"expired", "kedaluwarsa", "kadaluarsa"}},
	{ReasonNotActive, []string{"not active", "belum aktif"}},
	{ReasonRequired, []string{"required", "wajib"}},
}

// reasonOf reads what a message says, case-blind; the first reason whose words it has.
func reasonOf(msg string) Reason {
	msg = strings.ToLower(msg)
	for _, r := range reasonWords {
		for _, w := range r.words {
			if strings.Contains(msg, w) {
				return r.reason
			}
		}
	}
	return ReasonOther
}
