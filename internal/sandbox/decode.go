package sandbox

import (
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

const (
	// maxBody bounds request bodies; a full batch of 1000 components is ~0.5 MiB.
	maxBody = 16 << 20
	// maxBatch is the largest list one request may carry.
	maxBatch = 1000
	// maxRupiah bounds amounts and penalties, so their sum cannot overflow.
	maxRupiah = 1_000_000_000_000_000
)

// nisPattern is the shape of a student number.
var nisPattern = regexp.MustCompile(`^[A-Za-z0-9.-]{1,32}$`)

// decodeBody reads a JSON body into dst whatever the Content-Type says (the
// provider's PHP library sends none): invalid JSON is a 406, an oversized
// body a 413, JSON of the wrong shape a 400.
func decodeBody(w http.ResponseWriter, r *http.Request, dst any) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return errorf(http.StatusRequestEntityTooLarge, "body larger than %d bytes", maxBody)
		}
		return errorf(http.StatusBadRequest, "reading body: %v", err)
	}
	if !json.Valid(body) {
		return errorf(http.StatusNotAcceptable, "body is not valid JSON")
	}
	if err := json.Unmarshal(body, dst); err != nil {
		p := typeProblem(err)
		return errorf(http.StatusBadRequest, "%s: %s", p.Field, p.Message)
	}
	return nil
}

// typeProblem describes a JSON value of the wrong type.
func typeProblem(err error) problem {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			field = "body"
		}
		return problem{Index: -1, Field: field, Message: "must be " + jsonKind(te.Type.Kind().String())}
	}
	return problem{Index: -1, Field: "body", Message: "cannot be read"}
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "struct", "map":
		return "an object"
	case "slice", "array":
		return "a list"
	case "bool":
		return "true or false"
	default:
		return "a number"
	}
}

// decodeList reads the items of a batch one by one, so a wrong type in one item
// is reported with its index; ok[i] is false for an item that could not be read.
func decodeList[T any](raw []json.RawMessage, ps *problems) (items []T, ok []bool) {
	items, ok = make([]T, len(raw)), make([]bool, len(raw))
	for i, item := range raw {
		if err := json.Unmarshal(item, &items[i]); err != nil {
			p := typeProblem(err)
			if p.Field == "body" {
				p.Field = "item"
			}
			ps.add(i, p.Field, p.Message)
			continue
		}
		ok[i] = true
	}
	return items, ok
}

// problems collects the invalid fields of a request.
type problems []problem

func (ps *problems) add(i int, field, msg string) {
	*ps = append(*ps, problem{Index: i, Field: field, Message: msg})
}

// checkList validates the length of a batch list.
func (ps *problems) checkList(field string, n int) bool {
	switch {
	case n == 0:
		ps.add(-1, field, "required, at least one item")
	case n > maxBatch:
		ps.add(-1, field, "at most "+strconv.Itoa(maxBatch)+" items")
	default:
		return true
	}
	return false
}

func blank(s string) bool { return strings.TrimSpace(s) == "" }

// defaultKeyName is stored when a student comes without bill_key_name, as
// the provider's own clients always send it.
const defaultKeyName = "NIS"

// validateStudent checks one student; a blank bill_key_name becomes "NIS".
func validateStudent(st *student, i int, ps *problems) {
	if blank(st.Name) {
		ps.add(i, "name", "required")
	}
	switch {
	case st.BillKeyValue == "":
		ps.add(i, "bill_key_value", "required")
	case !nisPattern.MatchString(st.BillKeyValue):
		ps.add(i, "bill_key_value", "must be 1 to 32 letters, digits, dots or dashes")
	}
	if blank(st.BillKeyName) {
		st.BillKeyName = defaultKeyName
	}
}

// componentInput is a component of an upload batch or of a checkout.
type componentInput struct {
	BillKey     string          `json:"bill_key"`
	AccountCode string          `json:"account_code"`
	Name        string          `json:"bill_component_name"`
	ExpiryDate  *string         `json:"expiry_date"`
	DueDate     *string         `json:"due_date"`
	ActiveDate  *string         `json:"active_date"`
	Amount      json.RawMessage `json:"amount"`
	Penalty     json.RawMessage `json:"penalty_amount"`
	Notes       string          `json:"notes"`
	Description string          `json:"description"`
}

// validComponent is a checked componentInput.
type validComponent struct {
	billKey     string
	accountCode string
	name        string
	active      *time.Time
	due         time.Time
	expiry      time.Time
	amount      int64
	penalty     int64
	notes       string
}

// validateComponent checks the fields of one component (not whether its
// student exists); withBillKey is false for checkout components.
func (s *Server) validateComponent(in *componentInput, i int, withBillKey bool, ps *problems) validComponent {
	v := validComponent{billKey: in.BillKey, accountCode: in.AccountCode, name: in.Name, notes: in.Notes}
	if !withBillKey {
		v.notes = in.Description
	}
	if withBillKey && in.BillKey == "" {
		ps.add(i, "bill_key", "required")
	}
	switch {
	case in.AccountCode == "":
		ps.add(i, "account_code", "required")
	case !s.knownAccount(in.AccountCode):
		ps.add(i, "account_code", "unknown account code (known: "+strings.Join(s.accounts, ", ")+")")
	}
	if blank(in.Name) {
		ps.add(i, "bill_component_name", "required")
	}
	ts := func(field string, raw *string, required bool) *time.Time {
		if raw == nil || *raw == "" {
			if required {
				ps.add(i, field, "required")
			}
			return nil
		}
		t, ok := parseTimestamp(*raw)
		if !ok {
			ps.add(i, field, "must be a timestamp like 2026-01-10T00:00:00Z")
			return nil
		}
		return &t
	}
	expiry := ts("expiry_date", in.ExpiryDate, true)
	due := ts("due_date", in.DueDate, true)
	if in.ActiveDate != nil && noActiveDate(*in.ActiveDate) {
		in.ActiveDate = nil
	}
	v.active = ts("active_date", in.ActiveDate, false)
	if due != nil {
		v.due = *due
	}
	if expiry != nil {
		v.expiry = *expiry
	}
	if due != nil && expiry != nil && due.After(*expiry) {
		ps.add(i, "due_date", "must not be after expiry_date")
	}
	if due != nil && v.active != nil && v.active.After(*due) {
		ps.add(i, "active_date", "must not be after due_date")
	}
	amount, present, ok := rupiah(in.Amount)
	switch {
	case !present:
		ps.add(i, "amount", "required")
	case !ok:
		ps.add(i, "amount", "must be a whole number of rupiah")
	case amount <= 0:
		ps.add(i, "amount", "must be greater than 0")
	case amount > maxRupiah:
		ps.add(i, "amount", "must be at most "+strconv.Itoa(maxRupiah))
	}
	penalty, _, ok := rupiah(in.Penalty)
	switch {
	case !ok:
		ps.add(i, "penalty_amount", "must be a whole number of rupiah")
	case penalty < 0:
		ps.add(i, "penalty_amount", "must not be negative")
	case penalty > maxRupiah:
		ps.add(i, "penalty_amount", "must be at most "+strconv.Itoa(maxRupiah))
	}
	v.amount, v.penalty = amount, penalty
	return v
}

// rupiah reads whole rupiah from a JSON number or a numeric string
// ("250000", "250000.00"); present is false when absent, null or "".
// Integral values written with a fraction or exponent (450000.0, 4.5e5)
// are accepted; a fraction other than zero is not.
func rupiah(raw json.RawMessage) (n int64, present, ok bool) {
	v := strings.TrimSpace(string(raw))
	if v == "" || v == "null" {
		return 0, false, true
	}
	if v[0] == '"' {
		var str string
		if json.Unmarshal(raw, &str) != nil {
			return 0, true, false
		}
		if v = strings.TrimSpace(str); v == "" {
			return 0, false, true
		}
	}
	if v[0] != '-' && (v[0] < '0' || v[0] > '9') {
		return 0, true, false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return n, true, true
	}
	f, _, err := big.ParseFloat(v, 10, 128, big.ToNearestEven)
	if err != nil || !f.IsInt() {
		return 0, true, false
	}
	n, acc := f.Int64()
	return n, true, acc == big.Exact
}

func (s *Server) knownAccount(code string) bool { return slices.Contains(s.accounts, code) }
