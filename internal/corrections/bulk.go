package corrections

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/component"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/problem"
)

// What a bulk correction does to every component of the selection.
const (
	ActionAmount  = "amount"
	ActionPenalty = "penalty"
	ActionDue     = "due"
	ActionExpiry  = "expiry"
	ActionCancel  = "cancel"
)

// Actions lists the bulk corrections in the order the form offers them.
var Actions = []string{ActionAmount, ActionPenalty, ActionDue, ActionExpiry, ActionCancel}

// MaxSelection bounds the components one bulk correction changes; a larger selection is
// narrowed with the list's filters first.
const MaxSelection = 5000

// Why a component of the selection is left out of a bulk correction (catalogue keys).
const (
	LeftPaid      = KeyPaid
	LeftUnchanged = "corrections.left.unchanged"
	LeftDays      = "corrections.left.days" // the new day would break the order of its days
)

// FieldAction is the problem field of the action chosen.
const FieldAction = "action"

// Change is one bulk correction as the person asked for it, checked with the component
// rules: a field's new value, or the cancel and its reason.
type Change struct {
	Action string
	// Value is what was typed, for the page and the job.
	Value  string
	Amount int64
	Day    time.Time
	Reason string
}

// ParseChange checks a bulk correction's form: the action, and the value it needs read
// with the component rules (an amount, a penalty, a day), or a cancel's reason.
func ParseChange(action, value, reason string) (Change, problem.List) {
	var l problem.List
	c := Change{Action: action, Value: strings.TrimSpace(value)}
	switch action {
	case ActionAmount:
		c.Amount = component.ParseAmount(&l, value)
	case ActionPenalty:
		if strings.TrimSpace(value) == "" {
			l.Add(component.FieldPenalty, "form.required")
		} else {
			c.Amount = component.ParsePenalty(&l, value)
		}
	case ActionDue:
		c.Day = component.ParseDay(&l, component.FieldDue, value, true)
	case ActionExpiry:
		c.Day = component.ParseDay(&l, component.FieldExpiry, value, true)
	case ActionCancel:
		c.Value, c.Reason = "", strings.TrimSpace(reason)
		CheckReason(&l, c.Reason)
	default:
		l.Add(FieldAction, "form.required")
	}
	return c, l
}

// Row is one component of a preview: as it is, and what the correction makes of it.
type Row struct {
	Bill billing.Bill
	// After is the component after the correction (a cancel leaves it as it is).
	After billing.Bill
	// Left is why it is left out ("" when it is changed).
	Left string
}

// Preview is exactly what a bulk correction will do, computed from the ledger: the
// components it changes, those it leaves out and why, the totals before and after, and
// the selection's fingerprint, which the confirmation carries so a selection that
// changed in between is caught.
type Preview struct {
	Change                    Change
	Rows                      []Row // every component of the selection, changed ones first
	Count                     int   // changed
	LeftOut                   map[string]int
	AmountBefore, AmountAfter int64
	PenaltyBefore             int64
	PenaltyAfter              int64
	// TooMany: the selection holds more than MaxSelection components; nothing is offered.
	TooMany     bool
	Fingerprint string
}

// Items are the preview's changes as a job's items.
func (p Preview) Items() []Item {
	var items []Item
	for _, r := range p.Rows {
		if r.Left == "" {
			items = append(items, Item{Component: r.Bill, Update: Changes(r.Bill, input(r.After))})
		}
	}
	return items
}

// LeftOutCount is how many components the correction leaves alone.
func (p Preview) LeftOutCount() int {
	n := 0
	for _, v := range p.LeftOut {
		n += v
	}
	return n
}

func input(b billing.Bill) billing.ComponentInput {
	return billing.ComponentInput{NIS: b.NIS, AccountCode: b.AccountCode, Name: b.Name, Amount: b.Amount, Penalty: b.Penalty,
		Due: b.Due, Expiry: b.Expiry, Active: b.Active, Notes: b.Notes}
}

// Bulk reads the components the bills list's query q selects (every page of it) from
// the ledger and previews change c on them.
func Bulk(ctx context.Context, l *ledger.Ledger, q ledger.BillsQuery, c Change) (Preview, error) {
	q.Offset, q.Limit = 0, MaxSelection+1
	page, err := l.Bills(ctx, q)
	if err != nil {
		return Preview{}, fmt.Errorf("corrections: the selection: %w", err)
	}
	if len(page.Bills) > MaxSelection {
		return Preview{Change: c, TooMany: true, Count: page.Totals.Count}, nil
	}
	return Plan(page.Bills, c), nil
}

// Plan previews change c on the components bills.
func Plan(bills []billing.Bill, c Change) Preview {
	p := Preview{Change: c, LeftOut: map[string]int{}}
	var left []Row
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%d\x00%s\x00%s\n", c.Action, c.Value, c.Amount, c.Day.Format(dayLayout), c.Reason)
	for _, b := range bills {
		r := Row{Bill: b, After: b}
		switch {
		case Refusal(b) != "":
			r.Left = Refusal(b)
		case c.Action == ActionCancel:
		default:
			switch c.Action {
			case ActionAmount:
				r.After.Amount = c.Amount
			case ActionPenalty:
				r.After.Penalty = c.Amount
			case ActionDue:
				r.After.Due = c.Day
			case ActionExpiry:
				r.After.Expiry = c.Day
			}
			var probs problem.List
			component.CheckDays(&probs, r.After.Due, r.After.Expiry, r.After.Active)
			switch {
			case len(probs) > 0:
				r.Left = LeftDays
			case Empty(Changes(b, input(r.After))):
				r.Left = LeftUnchanged
			}
		}
		if r.Left != "" {
			p.LeftOut[r.Left]++
			left = append(left, r)
			continue
		}
		p.Rows = append(p.Rows, r)
		p.Count++
		p.AmountBefore += b.Amount
		p.AmountAfter += r.After.Amount
		p.PenaltyBefore += b.Penalty
		p.PenaltyAfter += r.After.Penalty
		// The fingerprint is of what will be sent and what it changes from: a component
		// paid, changed or added since the preview changes it.
		fmt.Fprintf(h, "%s\x00%d\x00%d\x00%s\x00%s\x00%s\n", b.ComponentID, b.Amount, b.Penalty,
			b.Due.Format(dayLayout), b.Expiry.Format(dayLayout), b.State)
	}
	if c.Action == ActionCancel {
		p.AmountAfter, p.PenaltyAfter = 0, 0
	}
	fmt.Fprintf(h, "left %d\n", len(left))
	p.Rows = append(p.Rows, left...)
	p.Fingerprint = hex.EncodeToString(h.Sum(nil)[:16])
	return p
}

// Request is the job that carries the preview out; the caller adds the actor.
func (p Preview) Request(selection string) Request {
	// The value is kept read (whole rupiah, a day), for the job's page to word.
	value := strconv.FormatInt(p.Change.Amount, 10)
	if p.Change.Action == ActionDue || p.Change.Action == ActionExpiry {
		value = p.Change.Day.Format(dayLayout)
	}
	req := Request{Kind: KindUpdate, Source: SourceBulk, Field: p.Change.Action, Value: value, Reason: p.Change.Reason,
		Selection: selection, Items: p.Items(), LeftOut: p.LeftOutCount(), AmountBefore: p.AmountBefore, AmountAfter: p.AmountAfter}
	if p.Change.Action == ActionCancel {
		req.Kind, req.Field = KindCancel, ""
	}
	return req
}
