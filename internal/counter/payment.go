package counter

import (
	"slices"
	"strings"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/component"
	"github.com/sekolah/portal/internal/problem"
)

// Why a component on the counter form cannot be chosen.
const (
	ReasonExpired   = "payments.reason.expired"
	ReasonNotActive = "payments.reason.not_active"
)

// Line is one unpaid component of the student at the counter, priced as of today.
type Line struct {
	Bill    billing.Bill
	Today   component.Today
	Payable bool
	// Reason is the message key saying why it cannot be paid (when not Payable).
	Reason  string
	Late    bool
	Penalty int64 // the penalty paying today adds
	Due     int64 // what paying today costs
}

func lineOf(b billing.Bill, today time.Time) Line {
	t := component.On(b, today)
	l := Line{Bill: b, Today: t, Late: t.Status == component.StatusOverdue, Penalty: t.Penalty, Due: t.Price, Payable: t.Payable()}
	switch {
	case t.Status == component.StatusExpired:
		l.Reason = ReasonExpired
	case t.NotYetActive:
		l.Reason = ReasonNotActive
	}
	return l
}

// Outstanding lists the student's unpaid components for the counter form, earliest due
// first: payable ones and those that can no longer (expired) or not yet be paid. Paid ones
// are left out.
func Outstanding(bs []billing.Bill, today time.Time) []Line {
	var out []Line
	for _, b := range bs {
		if b.State != billing.StatePaid {
			out = append(out, lineOf(b, today))
		}
	}
	slices.SortStableFunc(out, func(a, b Line) int { return a.Bill.Due.Compare(b.Bill.Due) })
	return out
}

// PayableTotal is what paying every payable line today would cost.
func PayableTotal(lines []Line) int64 {
	var t int64
	for _, l := range lines {
		if l.Payable {
			t += l.Due
		}
	}
	return t
}

// Selection is what a counter payment will pay, priced as of today.
type Selection struct {
	Lines   []Line
	IDs     []string
	Amount  int64
	Penalty int64
	Total   int64
}

// Select checks the chosen component ids against the student's components as just read
// from the service and prices them as of today. Every chosen component must still be
// there, unpaid, not expired and active; otherwise the Problems say which and why.
func Select(fresh []billing.Bill, ids []string, today time.Time) (Selection, problem.List) {
	byID := make(map[string]billing.Bill, len(fresh))
	for _, b := range fresh {
		byID[b.ComponentID] = b
	}
	var sel Selection
	var probs problem.List
	seen := map[string]bool{}
	for _, id := range ids {
		id = strings.TrimSpace(id)
		if id == "" || seen[id] {
			continue
		}
		seen[id] = true
		b, ok := byID[id]
		if !ok {
			probs.Add(FieldComponent, "payments.err.gone")
			continue
		}
		if b.State == billing.StatePaid {
			probs.Add(FieldComponent, "payments.err.paid", b.Name, b.RefNumber)
			continue
		}
		l := lineOf(b, today)
		if !l.Payable {
			key := "payments.err.expired"
			if l.Reason == ReasonNotActive {
				key = "payments.err.not_active"
			}
			probs.Add(FieldComponent, key, b.Name)
			continue
		}
		sel.Lines = append(sel.Lines, l)
	}
	if len(seen) == 0 {
		probs.Add(FieldComponent, "payments.err.none")
	}
	if len(probs) > 0 {
		return Selection{}, probs
	}
	slices.SortStableFunc(sel.Lines, func(a, b Line) int { return a.Bill.Due.Compare(b.Bill.Due) })
	for _, l := range sel.Lines {
		sel.IDs = append(sel.IDs, l.Bill.ComponentID)
		sel.Amount += l.Bill.Amount
		sel.Penalty += l.Penalty
		sel.Total += l.Due
	}
	return sel, nil
}

// RefUsed reports whether the student already has a payment under ref: a second payment
// under the same number would merge into the first one's receipt.
func RefUsed(fresh []billing.Bill, ref string) bool {
	for _, b := range fresh {
		if b.State == billing.StatePaid && strings.EqualFold(b.RefNumber, ref) {
			return true
		}
	}
	return false
}

// PayProblems turns the service's refusal of a payment (400 with one item per component)
// into plain-worded problems naming the components; ok is false when err is not such a
// refusal or says nothing this package can word.
func PayProblems(err error, ids []string, fresh []billing.Bill) (probs problem.List, ok bool) {
	apiErr, ok := billing.AsAPIError(err)
	if !ok || !apiErr.Validation() || len(apiErr.Problems()) == 0 {
		return nil, false
	}
	names := make(map[string]string, len(fresh))
	for _, b := range fresh {
		names[b.ComponentID] = b.Name
	}
	for _, it := range apiErr.Problems() {
		name := ""
		if it.Index >= 0 && it.Index < len(ids) {
			name = names[ids[it.Index]]
		}
		if name == "" {
			return nil, false
		}
		switch it.Reason {
		case billing.ReasonPaid:
			probs.Add(FieldComponent, "payments.err.paid_meanwhile", name)
		case billing.ReasonExpired:
			probs.Add(FieldComponent, "payments.err.expired", name)
		case billing.ReasonNotActive:
			probs.Add(FieldComponent, "payments.err.not_active", name)
		default:
			return nil, false
		}
	}
	return probs, true
}

// Receipt is one payment as the receipt shows it: the components paid under a reference.
type Receipt struct {
	NIS         string
	StudentName string
	// Class is the student's class in the roster ("" when unknown).
	Class string
	// Cashier is the display name of who recorded the payment at the counter, from the
	// audit log; "" for a payment the portal did not record (a bank's).
	Cashier, CashierUsername string
	Ref                      string
	PaidAt                   time.Time
	Lines                    []ReceiptLine
	Amount                   int64
	Penalty                  int64
	Total                    int64
}

// ReceiptLine is one component paid.
type ReceiptLine struct {
	Bill    billing.Bill
	Penalty int64 // the penalty part of what was paid
}

// BuildReceipt gathers the paid components under ref (the service's answer to a search by
// ref_number); ok is false when there is none.
func BuildReceipt(nis, ref string, bs []billing.Bill) (Receipt, bool) {
	r := Receipt{NIS: nis, Ref: ref}
	for _, b := range bs {
		if b.State != billing.StatePaid || !strings.EqualFold(b.RefNumber, ref) || b.NIS != "" && b.NIS != nis {
			continue
		}
		if r.StudentName == "" {
			r.StudentName = b.StudentName
		}
		if b.PaidAt.After(r.PaidAt) {
			r.PaidAt = b.PaidAt
		}
		l := ReceiptLine{Bill: b, Penalty: component.PenaltyPaid(b)}
		r.Lines = append(r.Lines, l)
		r.Amount += b.AmountPaid - l.Penalty
		r.Penalty += l.Penalty
		r.Total += b.AmountPaid
	}
	slices.SortStableFunc(r.Lines, func(a, b ReceiptLine) int { return a.Bill.Due.Compare(b.Bill.Due) })
	return r, len(r.Lines) > 0
}
