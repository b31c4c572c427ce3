package billing

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The service's records are read leniently (the real service is not the
// sandbox): strings may come as numbers or null, amounts as 450000.0,
// timestamps with or without fractional seconds.

// text reads a JSON string, number or null as text.
type text string

func (t *text) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case string(b) == "null":
		*t = ""
	case len(b) > 1 && b[0] == '"' && b[len(b)-1] == '"' && plainString(b[1:len(b)-1]):
		*t = text(b[1 : len(b)-1]) // nothing to unquote: most of a page's strings
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*t = text(s)
	case len(b) > 0 && (b[0] == '-' || b[0] >= '0' && b[0] <= '9'):
		*t = text(b)
	default:
		return fmt.Errorf("want text, got %s", b)
	}
	return nil
}

// plainString reports whether the inside of a JSON string reads as itself: no escapes
// (encoding/json has already checked the string as a whole), no control characters and
// valid UTF-8 (which unquoting would replace with U+FFFD).
func plainString(inner []byte) bool {
	for _, c := range inner {
		if c == '\\' || c < 0x20 {
			return false
		}
	}
	return utf8.Valid(inner)
}

// number reads a whole number (rupiah, counts) from a JSON number, a quoted
// number or null; 450000.0 is accepted, 450000.5 is refused since rupiah
// have no fractions and rounding money silently is worse than failing.
type number int64

func (n *number) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if string(b) == "null" {
		*n = 0
		return nil
	}
	s := string(b)
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		s = strings.TrimSpace(s)
		if s == "" {
			*n = 0
			return nil
		}
	}
	v, err := wholeNumber(s)
	if err != nil {
		return err
	}
	*n = number(v)
	return nil
}

func wholeNumber(s string) (int64, error) {
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		return v, nil
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return 0, fmt.Errorf("amount %q is not a number", s)
	}
	if !r.IsInt() {
		return 0, fmt.Errorf("amount %s is not a whole number of rupiah", s)
	}
	if !r.Num().IsInt64() {
		return 0, fmt.Errorf("amount %s is out of range", s)
	}
	return r.Num().Int64(), nil
}

// stamp reads a timestamp in the forms seen from the service; null and ""
// are the zero time. A timestamp with a zone is an instant; one without a
// zone (2026-11-23T12:34:56.123456) is a wall-clock time of the service's
// zone, which the record's reader supplies (see instant and day).
type stamp struct {
	t     time.Time // UTC; for a zoneless stamp, the wall clock written as UTC
	local bool      // no zone was given
}

var (
	zonedLayouts = []string{
		time.RFC3339Nano, // also reads the plain form without fractional seconds
		"2006-01-02T15:04:05.999999999Z0700",
		"2006-01-02 15:04:05.999999999Z07:00",
	}
	zonelessLayouts = []string{
		"2006-01-02T15:04:05.999999999",
		"2006-01-02 15:04:05.999999999",
		"2006-01-02",
	}
)

func (s *stamp) UnmarshalJSON(b []byte) error {
	var v text
	if err := v.UnmarshalJSON(b); err != nil {
		return err
	}
	str := strings.TrimSpace(string(v))
	if str == "" {
		*s = stamp{}
		return nil
	}
	parsed, local, ok := parseStamp(str)
	if !ok {
		return fmt.Errorf("timestamp %q is not in a known form", str)
	}
	*s = stamp{t: parsed, local: local}
	return nil
}

// parseStamp reads the text of a timestamp; local reports one without a zone.
func parseStamp(str string) (t time.Time, local, ok bool) {
	for _, layout := range zonedLayouts {
		if t, err := time.Parse(layout, str); err == nil {
			return t.UTC(), false, true
		}
	}
	for _, layout := range zonelessLayouts {
		if t, err := time.Parse(layout, str); err == nil {
			return t, true, true
		}
	}
	return time.Time{}, false, false
}

// instant is the moment the stamp names: a zoneless stamp is read as
// wall-clock time in zone (the service's), then kept in UTC.
func (s stamp) instant(zone *time.Location) time.Time {
	if s.t.IsZero() || !s.local {
		return s.t
	}
	y, m, d := s.t.Date()
	hh, mm, ss := s.t.Clock()
	return time.Date(y, m, d, hh, mm, ss, s.t.Nanosecond(), zone).UTC()
}

// day is the stamp as a calendar day (due, expiry and active dates): a stamp
// with a zone is kept as the instant, whose UTC date is the day (the day
// rule); a zoneless one is the date it spells, at UTC midnight. For the
// service's own days (UTC midnight written in a zone east of UTC, as in
// Indonesia) both read the same date, and the spelled date stays right when
// the client's guess of the service zone is not.
func (s stamp) day() time.Time {
	if s.t.IsZero() || !s.local {
		return s.t
	}
	return DayIn(s.t, time.UTC)
}

// dayStamp sends t's own calendar date (in t's location) as the service's
// UTC-midnight timestamp; the zero time is "" so omitempty drops it.
func dayStamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	y, m, d := t.Date()
	return fmt.Sprintf("%04d-%02d-%02dT00:00:00Z", y, m, d)
}

// queryDate formats t's own calendar date as YYYYMMDD; zero is "".
func queryDate(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format("20060102")
}

// foldState maps the service's state names onto the four the portal knows;
// the money-received states of the real service all read as paid.
func foldState(raw string) State {
	switch strings.ToLower(strings.TrimSpace(raw)) {
	case "provisioned", "outstanding", "unpaid":
		return StateProvisioned
	case "paid", "reconciled", "pending_disburse", "disburse_in_progress", "cleared":
		return StatePaid
	case "expired":
		return StateExpired
	case "deleted":
		return StateDeleted
	}
	return State(raw)
}

// wireStudent is a student as sent.
type wireStudent struct {
	Name        string `json:"name"`
	NIS         string `json:"bill_key_value"`
	KeyName     string `json:"bill_key_name,omitempty"`
	Phone       string `json:"phone,omitempty"`
	Email       string `json:"email,omitempty"`
	Description string `json:"description,omitempty"`
}

// readStudent is a student as read.
type readStudent struct {
	Name        text `json:"name"`
	NIS         text `json:"bill_key_value"`
	KeyName     text `json:"bill_key_name"`
	Phone       text `json:"phone"`
	Email       text `json:"email"`
	Description text `json:"description"`
}

func (s Student) wire() wireStudent {
	key := s.KeyName
	if key == "" {
		key = DefaultKeyName
	}
	return wireStudent{Name: s.Name, NIS: s.NIS, KeyName: key, Phone: s.Phone, Email: s.Email, Description: s.Description}
}

func (w wireStudent) read() readStudent {
	return readStudent{Name: text(w.Name), NIS: text(w.NIS), KeyName: text(w.KeyName),
		Phone: text(w.Phone), Email: text(w.Email), Description: text(w.Description)}
}

func (r readStudent) student() Student {
	return Student{NIS: string(r.NIS), Name: string(r.Name), KeyName: string(r.KeyName),
		Phone: string(r.Phone), Email: string(r.Email), Description: string(r.Description)}
}

// wireComponent is an upload item (bill_upload_list) of both the component
// batch (with bill_key and notes) and the checkout (with description).
type wireComponent struct {
	NIS         string `json:"bill_key,omitempty"`
	AccountCode string `json:"account_code"`
	Name        string `json:"bill_component_name"`
	Expiry      string `json:"expiry_date"`
	Due         string `json:"due_date"`
	Active      string `json:"active_date,omitempty"`
	Amount      int64  `json:"amount"`
	Penalty     int64  `json:"penalty_amount,omitempty"`
	Notes       string `json:"notes,omitempty"`
	Description string `json:"description,omitempty"`
}

// readBill is a bill component record as read.
type readBill struct {
	ComponentID text   `json:"bill_component_id"`
	BillID      text   `json:"bill_id"`
	NIS         text   `json:"bill_key"`
	StudentName text   `json:"bill_name"`
	AccountCode text   `json:"account_code"`
	Name        text   `json:"bill_component_name"`
	Amount      number `json:"amount"`
	Penalty     number `json:"penalty_amount"`
	Active      stamp  `json:"active_date"`
	Due         stamp  `json:"due_date"`
	Expiry      stamp  `json:"expiry_date"`
	State       text   `json:"state"`
	AmountPaid  number `json:"amount_paid"`
	PaidAt      stamp  `json:"paid_date"`
	RefNumber   text   `json:"ref_number"`
	Notes       text   `json:"notes"`
	CreatedAt   stamp  `json:"created_at"`
	UpdatedAt   stamp  `json:"updated_at"`
}

// bill converts a record; zone is the service zone zoneless instants are read in.
func (r readBill) bill(zone *time.Location) Bill {
	return Bill{
		ComponentID: string(r.ComponentID),
		BillID:      string(r.BillID),
		NIS:         string(r.NIS),
		StudentName: string(r.StudentName),
		AccountCode: string(r.AccountCode),
		Name:        string(r.Name),
		Amount:      int64(r.Amount),
		Penalty:     int64(r.Penalty),
		Active:      activeDay(r.Active.day()),
		Due:         r.Due.day(),
		Expiry:      r.Expiry.day(),
		State:       foldState(string(r.State)),
		RawState:    string(r.State),
		AmountPaid:  int64(r.AmountPaid),
		PaidAt:      r.PaidAt.instant(zone),
		RefNumber:   string(r.RefNumber),
		Notes:       string(r.Notes),
		CreatedAt:   r.CreatedAt.instant(zone),
		UpdatedAt:   r.UpdatedAt.instant(zone),
	}
}

// activeDay reads 1970-01-01, what the provider's libraries send for "no
// active date" (and a service may store and answer back), as none.
func activeDay(t time.Time) time.Time {
	if y, m, d := t.UTC().Date(); y == 1970 && m == time.January && d == 1 {
		return time.Time{}
	}
	return t
}

// bills converts records, leaving out deleted ones unless keepDeleted.
func bills(rs []readBill, zone *time.Location, keepDeleted bool) []Bill {
	out := make([]Bill, 0, len(rs))
	for _, r := range rs {
		b := r.bill(zone)
		if b.State == StateDeleted && !keepDeleted {
			continue
		}
		out = append(out, b)
	}
	return out
}
