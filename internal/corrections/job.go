package corrections

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
)

// Kinds of a correction job (and KindReplace, replace.go).
const (
	KindUpdate = "update"
	KindCancel = "cancel"
)

// Sources of a correction job.
const (
	SourceBulk   = "bulk"   // the bills list's bulk correction
	SourceUpload = "upload" // the undo of an upload
)

// States of a correction job.
const (
	StateQueued  = "queued"
	StateRunning = "running"
	StateDone    = "done"    // every item done or left alone (paid, cancelled meanwhile)
	StatePartial = "partial" // some items refused by the service
)

// States of an item.
const (
	ItemPending = "pending"
	ItemSent    = "sent" // on its way, or without an answer: read the component before sending again
	ItemDone    = "done"
	ItemSkipped = "skipped" // paid or cancelled meanwhile: left as it is
	ItemFailed  = "failed"
)

// Running reports a job still to be finished.
func Running(state string) bool { return state == StateQueued || state == StateRunning }

// Item is one component of a job: for an update, the values to give it.
type Item struct {
	Component billing.Bill
	Update    billing.ComponentUpdate
	// Skip, when set, keeps the item out of the job from the start, with this problem
	// (an undo lists the paid components it keeps).
	Skip string
}

// Request is a job to submit: its items and what the person asked for (for the page).
type Request struct {
	Kind, Source string
	UploadID     string
	// Field and Value say what a bulk update sets, as typed; Reason is a cancel's.
	Field, Value, Reason string
	// Selection says how the components were chosen (the list's address).
	Selection string
	Items     []Item
	// LeftOut counts the components the selection held that the job leaves alone.
	LeftOut                   int
	AmountBefore, AmountAfter int64
	Actor                     auth.Actor
}

// values is an update as an item's payload: only the fields it sets, days as YYYY-MM-DD
// ("" for an active day removed).
type values struct {
	Name        *string `json:"name,omitempty"`
	AccountCode *string `json:"account_code,omitempty"`
	Amount      *int64  `json:"amount,omitempty"`
	Penalty     *int64  `json:"penalty,omitempty"`
	Due         *string `json:"due,omitempty"`
	Expiry      *string `json:"expiry,omitempty"`
	Active      *string `json:"active,omitempty"`
	Notes       *string `json:"notes,omitempty"`
}

const dayLayout = "2006-01-02"

func encodeDay(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := ""
	if !t.IsZero() {
		s = t.UTC().Format(dayLayout)
	}
	return &s
}

func decodeDay(s *string) (*time.Time, error) {
	if s == nil {
		return nil, nil
	}
	var t time.Time
	if *s != "" {
		var err error
		if t, err = time.Parse(dayLayout, *s); err != nil {
			return nil, err
		}
	}
	return &t, nil
}

// encodeUpdate is u as an item's payload.
func encodeUpdate(u billing.ComponentUpdate) string {
	v := values{Name: u.Name, AccountCode: u.AccountCode, Amount: u.Amount, Penalty: u.Penalty,
		Due: encodeDay(u.Due), Expiry: encodeDay(u.Expiry), Active: encodeDay(u.Active), Notes: u.Notes}
	b, _ := json.Marshal(v) // plain values: cannot fail
	return string(b)
}

// decodeUpdate reads an item's payload.
func decodeUpdate(payload string) (billing.ComponentUpdate, error) {
	var v values
	if err := json.Unmarshal([]byte(payload), &v); err != nil {
		return billing.ComponentUpdate{}, fmt.Errorf("corrections: item payload: %w", err)
	}
	u := billing.ComponentUpdate{Name: v.Name, AccountCode: v.AccountCode, Amount: v.Amount, Penalty: v.Penalty, Notes: v.Notes}
	var err error
	if u.Due, err = decodeDay(v.Due); err != nil {
		return u, fmt.Errorf("corrections: item payload: %w", err)
	}
	if u.Expiry, err = decodeDay(v.Expiry); err != nil {
		return u, fmt.Errorf("corrections: item payload: %w", err)
	}
	if u.Active, err = decodeDay(v.Active); err != nil {
		return u, fmt.Errorf("corrections: item payload: %w", err)
	}
	return u, nil
}
