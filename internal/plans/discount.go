package plans

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/internal/store"
)

// DiscountKind is how a discount is given: a share of the price or an amount off it.
type DiscountKind string

// The kinds of discount (the form's values).
const (
	Percent DiscountKind = "percent"
	Amount  DiscountKind = "amount"
)

// Reason is why a discount is given.
type Reason string

// The reasons a discount may have (the form's values); Other carries the words typed.
const (
	Sibling     Reason = "sibling"     // saudara kandung
	StaffChild  Reason = "staff_child" // anak guru/karyawan
	Scholarship Reason = "scholarship" // beasiswa
	Hardship    Reason = "hardship"    // keringanan (tidak mampu)
	Other       Reason = "other"
)

// Reasons are every reason, in the order the form offers them.
var Reasons = []Reason{Sibling, StaffChild, Scholarship, Hardship, Other}

// Key is the catalogue key of its name ("plans.reason.sibling").
func (r Reason) Key() string { return "plans.reason." + string(r) }

// Whole is a percentage of 100%, in hundredths of a percent: a discount's Value of
// Whole takes everything off.
const Whole = 10_000

// Discount is a discount or scholarship of one student: for one plan or every plan, a
// percentage or an amount, over a range of months.
type Discount struct {
	ID, NIS string
	// PlanID is the plan it is for; "" for every plan.
	PlanID string
	Kind   DiscountKind
	// Value is hundredths of a percent (Percent: 5000 is 50%) or rupiah (Amount).
	Value  int64
	Reason Reason
	// Note is the words typed about it (required for Other).
	Note string
	// From and To bound the periods it covers (a period starting in one of these months);
	// a zero month leaves that end open.
	From, To               Month
	GrantedBy, GrantedByID string
	CreatedAt, UpdatedAt   time.Time
}

// Off is what the discount takes off price, in whole rupiah, never below zero nor above
// price. A percentage is rounded to the nearest rupiah, half a rupiah up (in the parents'
// favour): 10% of Rp 350.005 is Rp 35.001 off. An amount takes itself off, at most price.
func (d Discount) Off(price int64) int64 {
	if price <= 0 || d.Value <= 0 {
		return 0
	}
	switch d.Kind {
	case Percent:
		if d.Value >= Whole {
			return price
		}
		// price ≤ i18n.MaxRupiah (10^12) and Value < 10^4: the product fits in int64.
		return min((price*d.Value+Whole/2)/Whole, price)
	case Amount:
		return min(d.Value, price)
	}
	return 0
}

// Charge is what a price costs with the discount: price less Off(price), never negative.
func (d Discount) Charge(price int64) int64 { return price - d.Off(price) }

// Covers reports whether the discount applies to the period starting in month m of plan
// planID.
func (d Discount) Covers(planID string, m Month) bool {
	if d.PlanID != "" && d.PlanID != planID {
		return false
	}
	return (d.From.IsZero() || m >= d.From) && (d.To.IsZero() || m <= d.To)
}

// Best is the discount of ds that applies to the period starting in month m of plan
// planID and takes the most off price (discounts do not add up: the largest one applies;
// on a tie, the one for this plan, then the oldest); false when none applies.
func Best(ds []Discount, planID string, m Month, price int64) (Discount, bool) {
	var best Discount
	found := false
	for _, d := range ds {
		if !d.Covers(planID, m) {
			continue
		}
		switch off, bestOff := d.Off(price), best.Off(price); {
		case !found, off > bestOff, off == bestOff && d.PlanID != "" && best.PlanID == "":
			best, found = d, true
		}
	}
	return best, found
}

// Text says the discount's size: "50%", "12,5%" ("12.5%" in English), "Rp 100.000".
func (d Discount) Text(p i18n.Printer) string {
	if d.Kind == Amount {
		return i18n.Rupiah(d.Value)
	}
	whole, frac := d.Value/100, d.Value%100
	s := strconv.FormatInt(whole, 10)
	if frac != 0 {
		f := strings.TrimRight(strconv.FormatInt(100+frac, 10)[1:], "0")
		sep := ","
		if p.Lang == i18n.English {
			sep = "."
		}
		s += sep + f
	}
	return s + "%"
}

// ReasonText says why: the reason's name, with the words typed.
func (d Discount) ReasonText(p i18n.Printer) string {
	name := p.T(d.Reason.Key())
	switch {
	case d.Note == "":
		return name
	case d.Reason == Other:
		return d.Note
	}
	return name + " · " + d.Note
}

// The discount form's fields (the contract's names), as problem fields.
const (
	FieldDiscountPlan  = "plan"
	FieldDiscountKind  = "kind"
	FieldDiscountValue = "value"
	FieldReason        = "reason"
	FieldNote          = "note"
)

// MaxNoteLen bounds a discount's words.
const MaxNoteLen = 200

// DiscountForm is a discount as typed. Reason is one of Reasons, or words of its own
// (then the reason is Other and the words are its note).
type DiscountForm struct {
	Plan, Kind, Value, Reason, Note, From, To string
}

// DiscountFormOf fills the form with d, to change it.
func DiscountFormOf(d Discount) DiscountForm {
	f := DiscountForm{Plan: d.PlanID, Kind: string(d.Kind), Reason: string(d.Reason), Note: d.Note, From: d.From.String(), To: d.To.String()}
	if d.Kind == Amount {
		f.Value = i18n.Number(d.Value)
	} else {
		f.Value = strings.TrimSuffix(d.Text(i18n.NewPrinter(i18n.Indonesian, time.UTC)), "%")
	}
	return f
}

// Parse checks the form and makes the discount it describes for student nis (plans
// says which plan ids exist).
func (f DiscountForm) Parse(nis string, plans map[string]bool) (Discount, problem.List) {
	var l problem.List
	d := Discount{NIS: nis, PlanID: strings.TrimSpace(f.Plan), Kind: DiscountKind(strings.TrimSpace(f.Kind)),
		Note: strings.Join(strings.Fields(f.Note), " ")}
	if d.PlanID != "" && !plans[d.PlanID] {
		l.Add(FieldDiscountPlan, "plans.err.discount_plan")
	}
	switch d.Kind {
	case Percent:
		d.Value = parsePercent(&l, f.Value)
	case Amount:
		if strings.TrimSpace(f.Value) == "" {
			l.Add(FieldDiscountValue, "form.required")
			break
		}
		v, err := i18n.ParseRupiah(f.Value)
		switch {
		case err != nil:
			l.Add(FieldDiscountValue, "components.err.amount")
		case v <= 0:
			l.Add(FieldDiscountValue, "form.positive")
		default:
			d.Value = v
		}
	default:
		l.Add(FieldDiscountKind, "plans.err.discount_kind")
	}
	reason := strings.Join(strings.Fields(f.Reason), " ")
	d.Reason = Reason(reason)
	known := false
	for _, r := range Reasons {
		known = known || r == d.Reason
	}
	if !known && reason != "" {
		// Words of its own: the reason is Other, and they are its note.
		d.Reason = Other
		d.Note = strings.TrimSpace(strings.Join([]string{reason, d.Note}, " "))
	}
	switch {
	case reason == "":
		l.Add(FieldReason, "form.required")
	case d.Reason == Other && d.Note == "":
		l.Add(FieldNote, "plans.err.note_other")
	}
	if utf8.RuneCountInString(d.Note) > MaxNoteLen {
		l.Add(FieldNote, "form.too_long", MaxNoteLen)
	}
	var ok bool
	if strings.TrimSpace(f.From) != "" {
		if d.From, ok = ParseMonth(f.From); !ok {
			l.Add(FieldFrom, "plans.err.month")
		}
	}
	if strings.TrimSpace(f.To) != "" {
		if d.To, ok = ParseMonth(f.To); !ok {
			l.Add(FieldTo, "plans.err.month")
		}
	}
	if !d.From.IsZero() && !d.To.IsZero() && d.To < d.From {
		l.Add(FieldTo, "plans.err.to_before_from")
	}
	return d, l
}

// parsePercent reads a percentage as typed ("50", "12,5", "12.5 %"): more than 0, at
// most 100, to a hundredth of a percent; in hundredths of a percent.
func parsePercent(l *problem.List, s string) int64 {
	s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "%"))
	if s == "" {
		l.Add(FieldDiscountValue, "form.required")
		return 0
	}
	whole, frac, _ := strings.Cut(strings.ReplaceAll(s, ",", "."), ".")
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || w < 0 || len(frac) > 2 || strings.Trim(frac, "0123456789") != "" {
		l.Add(FieldDiscountValue, "plans.err.percent")
		return 0
	}
	f := int64(0)
	if frac != "" {
		f, _ = strconv.ParseInt((frac + "0")[:2], 10, 64)
	}
	v := w*100 + f
	if v <= 0 || v > Whole {
		l.Add(FieldDiscountValue, "plans.err.percent")
		return 0
	}
	return v
}

// discountOf reads a stored discount.
func discountOf(s store.Discount) Discount {
	d := Discount{ID: s.ID, NIS: s.NIS, PlanID: s.PlanID, Kind: DiscountKind(s.Kind), Value: s.Value, Reason: Reason(s.Reason),
		Note: s.Note, GrantedBy: s.GrantedBy, GrantedByID: s.GrantedByID, CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt}
	d.From, _ = ParseMonth(s.FromMonth)
	d.To, _ = ParseMonth(s.ToMonth)
	return d
}

// record is the discount as stored.
func (d Discount) record() store.Discount {
	return store.Discount{ID: d.ID, NIS: d.NIS, PlanID: d.PlanID, Kind: string(d.Kind), Value: d.Value, Reason: string(d.Reason),
		Note: d.Note, FromMonth: d.From.String(), ToMonth: d.To.String(), GrantedBy: d.GrantedBy, GrantedByID: d.GrantedByID}
}
