package uploads

import (
	"encoding/json"
	"time"
)

// SampleSize is how many rows the preview shows as they will be sent.
const SampleSize = 10

// sampleScan is how many valid rows the analysis keeps as candidates for the sample: some
// turn out to be at the service already, or to have a problem found only after the whole
// sheet was read (an unknown NIS, a duplicate); the sample is the first SampleSize left.
const sampleScan = 5 * SampleSize

// SampleRow is one row of the preview's sample, as it will be sent: a component (NIS,
// name, account, amounts, days, notes) or a student (NIS, name, class, phone, e-mail).
type SampleRow struct {
	Row     int       `json:"row"`
	NIS     string    `json:"nis"`
	Name    string    `json:"name"`
	Account string    `json:"account,omitempty"`
	Amount  int64     `json:"amount,omitempty"`
	Penalty int64     `json:"penalty,omitempty"`
	Due     time.Time `json:"due,omitzero"`
	Expiry  time.Time `json:"expiry,omitzero"`
	Active  time.Time `json:"active,omitzero"`
	Notes   string    `json:"notes,omitempty"`
	Class   string    `json:"class,omitempty"`
	Phone   string    `json:"phone,omitempty"`
	Email   string    `json:"email,omitempty"`
	// Aid are a Dapodik export's aid flags the student has ("kip", "kps", "pip").
	Aid []string `json:"aid,omitempty"`
}

func sampleOfComponent(c Component) SampleRow {
	return SampleRow{Row: c.Row, NIS: c.NIS, Name: c.Name, Account: c.AccountCode, Amount: c.Amount, Penalty: c.Penalty,
		Due: c.Due, Expiry: c.Expiry, Active: c.Active, Notes: c.Notes}
}

func sampleOfStudent(s Student) SampleRow {
	r := SampleRow{Row: s.Row, NIS: s.NIS, Name: s.Name, Class: s.Class, Phone: s.Phone, Email: s.Email}
	for _, a := range []struct {
		on   bool
		code string
	}{{s.Aid.KIP, "kip"}, {s.Aid.KPS, "kps"}, {s.Aid.PIP, "pip"}} {
		if a.on {
			r.Aid = append(r.Aid, a.code)
		}
	}
	return r
}

// candidate is a valid row kept for the sample, with its index among the analysed rows.
type candidate struct {
	index int
	row   SampleRow
}

// pickSample is the first SampleSize candidates whose row is still new at the end.
func pickSample(cands []candidate, isNew func(index int) bool) []SampleRow {
	var out []SampleRow
	for _, c := range cands {
		if len(out) == SampleSize {
			break
		}
		if isNew(c.index) {
			out = append(out, c.row)
		}
	}
	return out
}

// EncodeSample is the sample as the store keeps it.
func EncodeSample(rows []SampleRow) (string, error) {
	if len(rows) == 0 {
		return "", nil
	}
	b, err := json.Marshal(rows)
	return string(b), err
}

// DecodeSample reads a job's stored sample.
func DecodeSample(s string) ([]SampleRow, error) {
	if s == "" {
		return nil, nil
	}
	var rows []SampleRow
	err := json.Unmarshal([]byte(s), &rows)
	return rows, err
}
