package plans

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/sekolah/portal/internal/component"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/internal/store"
)

// Frequency is how often a plan charges.
type Frequency string

// The frequencies a plan may have (the form's values).
const (
	Monthly  Frequency = "monthly"
	Semester Frequency = "semester"
	Once     Frequency = "once"
)

// Frequencies are every frequency, in the order the form offers them.
var Frequencies = []Frequency{Monthly, Semester, Once}

// Key is the catalogue key of its name ("plans.frequency.monthly").
func (f Frequency) Key() string { return "plans.frequency." + string(f) }

// months is how many months one period of f covers.
func (f Frequency) months() int {
	if f == Semester {
		return 6
	}
	return 1
}

// Scope is what a price of a plan's own is for.
type Scope string

// The scopes of a rate: a whole grade, or one class (a class's price wins over its grade's).
const (
	ScopeGrade Scope = "grade"
	ScopeClass Scope = "class"
)

// Rate is a price of a plan's own for a grade or a class.
type Rate struct {
	Scope  Scope
	Target string // the grade ("7") or the class as the roster writes it ("Kelas 7A")
	Amount int64
}

// Plan is a fee plan: a named fee with its schedule and prices.
type Plan struct {
	ID string
	// Code is short and stable: the key every component of the plan carries in its
	// notes ("[plan SPP2627 2026-07]"); it never changes once the plan exists.
	Code string
	// Name is the plan's ("SPP 2026/2027"); ItemName what its components are called
	// before their period ("SPP": "SPP Juli 2026").
	Name, ItemName string
	AccountCode    string
	// Amount is the price where no rate of the plan's own applies; Penalty the late fee of
	// each component.
	Amount, Penalty int64
	Frequency       Frequency
	// From and To are the first and last month charged (a period starts in a month of
	// this range).
	From, To Month
	// DueDay is the day of the month a period's component is due (a shorter month's last
	// day when it has none); ExpiryDays how many days after it the component expires.
	DueDay, ExpiryDays int
	// Instalments splits a one-time plan's price into that many monthly parts, the
	// remainder on the last ("Uang Pangkal, cicilan 1/3"); 1 for every other plan.
	Instalments          int
	Rates                []Rate
	CreatedBy            string
	CreatedAt, UpdatedAt time.Time
}

// Key is the natural key of the plan's component of period at.
func (p Plan) Key(at Month) ledger.PlanKey { return ledger.PlanKey{Code: p.Code, Period: at.String()} }

// PriceFor is the plan's full price for a student of class (before any discount): the
// class's own rate, else their grade's, else the plan's amount; and the rate that
// applied (zero Rate: the plan's amount).
func (p Plan) PriceFor(class string) (int64, Rate) {
	c := foldClass(class)
	grade := Grade(class)
	var byGrade *Rate
	for i, r := range p.Rates {
		switch {
		case r.Scope == ScopeClass && c != "" && foldClass(r.Target) == c:
			return r.Amount, r
		case r.Scope == ScopeGrade && grade != "" && r.Target == grade && byGrade == nil:
			byGrade = &p.Rates[i]
		}
	}
	if byGrade != nil {
		return byGrade.Amount, *byGrade
	}
	return p.Amount, Rate{}
}

func foldClass(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

var romans = map[string]int{"I": 1, "II": 2, "III": 3, "IV": 4, "V": 5, "VI": 6, "VII": 7, "VIII": 8, "IX": 9, "X": 10, "XI": 11, "XII": 12}

// gradeOnly reads a rate's target that names a whole grade: "7", "Kelas 7", "VIII".
func gradeOnly(target string) (string, bool) {
	s := stripClassWord(target)
	if n, err := strconv.Atoi(s); err == nil && n >= 1 && n <= 12 {
		return strconv.Itoa(n), true
	}
	if n, ok := romans[strings.ToUpper(s)]; ok {
		return strconv.Itoa(n), true
	}
	return "", false
}

// stripClassWord takes "Kelas" (or "Kls", "Class", "Grade") off the start of a class.
func stripClassWord(class string) string {
	s := strings.TrimSpace(class)
	for _, w := range []string{"kelas", "kls.", "kls", "class", "grade"} {
		if len(s) > len(w) && strings.EqualFold(s[:len(w)], w) {
			return strings.TrimSpace(s[len(w):])
		}
	}
	return s
}

// Grade is the grade of a class as schools write it: "Kelas 7A", "7 B", "VIII-C", "X IPA 1",
// "XII IPS 2" (7, 7, 8, 10, 12); "" when the class names none.
func Grade(class string) string {
	s := stripClassWord(class)
	digits := 0
	for digits < len(s) && s[digits] >= '0' && s[digits] <= '9' {
		digits++
	}
	if digits > 0 {
		if n, err := strconv.Atoi(s[:digits]); err == nil && n >= 1 && n <= 12 {
			return strconv.Itoa(n)
		}
		return ""
	}
	word := strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) })
	if len(word) == 0 {
		return ""
	}
	if n, ok := romans[strings.ToUpper(word[0])]; ok {
		return strconv.Itoa(n)
	}
	// "7A": the digits came first; "VIIA" is not a grade we can read safely.
	return ""
}

// The form's fields (the contract's names), as problem fields.
const (
	FieldName        = "name"
	FieldCode        = "code"
	FieldItemName    = "item_name"
	FieldAccount     = "account_code"
	FieldAmount      = "amount"
	FieldPenalty     = "penalty_amount"
	FieldFrequency   = "frequency"
	FieldFrom        = "from"
	FieldTo          = "to"
	FieldDueDay      = "due_day"
	FieldExpiryDays  = "expiry_days"
	FieldInstalments = "instalments"
	// FieldRates is the rates' field; each row's are "rate_for.N" and "rate_amount.N".
	FieldRates = "rates"
)

// Limits of a plan.
const (
	MaxNameLen     = 80
	MaxItemNameLen = 60 // the longest period name adds " Semester Ganjil 2026/2027"
	MaxPeriods     = 36
	MaxInstalments = 12
	MaxExpiryDays  = 366
	MaxRates       = 40
)

// RateForm is one rate as typed: a grade or a class, and its amount.
type RateForm struct{ For, Amount string }

// Form is a plan's form as typed (or as a plan fills it, to edit).
type Form struct {
	Name, Code, ItemName, AccountCode, Amount, Penalty, Frequency, From, To, DueDay, ExpiryDays, Instalments string
	Rates                                                                                                    []RateForm
}

// FormOf fills the form with plan p, to edit it.
func FormOf(p Plan) Form {
	f := Form{Name: p.Name, Code: p.Code, ItemName: p.ItemName, AccountCode: p.AccountCode, Amount: i18n.Number(p.Amount),
		Penalty: i18n.Number(p.Penalty), Frequency: string(p.Frequency), From: p.From.String(), To: p.To.String(),
		DueDay: strconv.Itoa(p.DueDay), ExpiryDays: strconv.Itoa(p.ExpiryDays), Instalments: strconv.Itoa(p.Instalments)}
	for _, r := range p.Rates {
		f.Rates = append(f.Rates, RateForm{For: r.Target, Amount: i18n.Number(r.Amount)})
	}
	return f
}

var codePattern = regexp.MustCompile(`^[A-Z0-9][A-Z0-9-]{1,15}$`)

// CleanCode is a typed code as kept: upper case, without spaces.
func CleanCode(s string) string {
	return strings.ToUpper(strings.Join(strings.Fields(s), ""))
}

// ValidCode reports a code a plan may have: 2 to 16 of A–Z, 0–9 and "-", starting with a
// letter or digit (it stands in the components' notes).
func ValidCode(code string) bool { return codePattern.MatchString(code) }

var (
	yearPair  = regexp.MustCompile(`^(\d{4})/(\d{4})$`)
	yearSlash = regexp.MustCompile(`(\d{4})\s*/\s*(\d{4})`)
)

// DeriveCode makes a code from a plan's name: the single word's letters or the words'
// initials, then a school year as its two pairs of last digits or a year as written
// ("SPP 2026/2027" → "SPP2627", "Uang Pangkal 2026" → "UP2026", "Uang Gedung" → "UG").
func DeriveCode(name string) string {
	var words, numbers []string
	for _, f := range strings.Fields(yearSlash.ReplaceAllString(name, "$1/$2")) {
		if m := yearPair.FindStringSubmatch(f); m != nil {
			numbers = append(numbers, m[1][2:]+m[2][2:])
			continue
		}
		var letters, digits strings.Builder
		for _, r := range f {
			switch {
			case r >= '0' && r <= '9':
				digits.WriteRune(r)
			case r < utf8.RuneSelf && unicode.IsLetter(r):
				letters.WriteRune(unicode.ToUpper(r))
			}
		}
		if letters.Len() > 0 {
			words = append(words, letters.String())
		}
		if digits.Len() > 0 {
			numbers = append(numbers, digits.String())
		}
	}
	code := ""
	switch {
	case len(words) == 1:
		code = words[0][:min(len(words[0]), 8)]
	case len(words) > 1:
		for _, w := range words {
			code += w[:1]
		}
	}
	code += strings.Join(numbers, "")
	code = code[:min(len(code), 16)]
	if len(code) < 2 {
		code = (code + "PLAN")[:4]
	}
	return code
}

// DefaultItemName is what the components of a plan named name are called before their
// period when no item name is typed: the name without a school year or year at its end
// for a plan that adds its period ("SPP 2026/2027" → "SPP"), the name itself for a
// one-time plan.
func DefaultItemName(name string, f Frequency) string {
	name = component.CleanName(name)
	if f == Once {
		return name
	}
	trimmed := regexp.MustCompile(`[\s,–-]*(?:T\.?A\.?\s*)?\d{4}(?:\s*/\s*\d{4})?$`).ReplaceAllString(name, "")
	if strings.TrimSpace(trimmed) == "" {
		return name
	}
	return strings.TrimSpace(trimmed)
}

// Parse checks the form and makes the plan it describes (no ID, and the code as typed,
// or derived from the name when none was: the service makes it unique); accounts are the
// service's account codes.
func (f Form) Parse(accounts []string) (Plan, problem.List) {
	var l problem.List
	p := Plan{Name: component.CleanName(f.Name), Code: CleanCode(f.Code), Frequency: Frequency(strings.TrimSpace(f.Frequency))}
	switch {
	case p.Name == "":
		l.Add(FieldName, "form.required")
	case utf8.RuneCountInString(p.Name) > MaxNameLen:
		l.Add(FieldName, "form.too_long", MaxNameLen)
	}
	if p.Code != "" && !ValidCode(p.Code) {
		l.Add(FieldCode, "plans.err.code")
	}
	p.AccountCode = component.Account(&l, f.AccountCode, accounts)
	p.Amount = component.ParseAmount(&l, f.Amount)
	var pl problem.List
	p.Penalty = component.ParsePenalty(&pl, f.Penalty)
	for _, q := range pl {
		l = append(l, q.In(FieldPenalty))
	}
	known := false
	for _, fr := range Frequencies {
		known = known || fr == p.Frequency
	}
	if !known {
		l.Add(FieldFrequency, "plans.err.frequency")
	}
	p.DueDay = parseInt(&l, FieldDueDay, f.DueDay, 1, 31, "")
	p.ExpiryDays = parseInt(&l, FieldExpiryDays, f.ExpiryDays, 0, MaxExpiryDays, "")
	p.Instalments = parseInt(&l, FieldInstalments, f.Instalments, 1, MaxInstalments, "1")
	if p.Instalments > 1 && p.Frequency != Once && known {
		l.Add(FieldInstalments, "plans.err.instalments_once")
	}
	var ok bool
	if p.From, ok = ParseMonth(f.From); !ok {
		l.Add(FieldFrom, monthProblem(f.From))
	}
	switch {
	case p.Frequency == Once && strings.TrimSpace(f.To) == "" && !p.From.IsZero():
		p.To = p.From.Add(max(p.Instalments, 1) - 1)
	default:
		if p.To, ok = ParseMonth(f.To); !ok {
			l.Add(FieldTo, monthProblem(f.To))
		}
	}
	if !p.From.IsZero() && !p.To.IsZero() {
		switch {
		case p.To < p.From:
			l.Add(FieldTo, "plans.err.to_before_from")
		case p.Frequency == Once && p.To != p.From.Add(max(p.Instalments, 1)-1):
			l.Add(FieldTo, "plans.err.once_to", p.From.Add(max(p.Instalments, 1)-1).First())
		case int(p.To-p.From)+1 > MaxPeriods:
			l.Add(FieldTo, "plans.err.too_long", MaxPeriods)
		}
	}
	p.ItemName = component.CleanName(f.ItemName)
	if p.ItemName == "" {
		p.ItemName = DefaultItemName(p.Name, p.Frequency)
	}
	if utf8.RuneCountInString(p.ItemName) > MaxItemNameLen {
		l.Add(FieldItemName, "form.too_long", MaxItemNameLen)
	}
	p.Rates = parseRates(&l, f.Rates)
	return p, l
}

func monthProblem(s string) string {
	if strings.TrimSpace(s) == "" {
		return "form.required"
	}
	return "plans.err.month"
}

// parseInt reads a whole number between lo and hi; empty is def ("": required).
func parseInt(l *problem.List, field, s string, lo, hi int, def string) int {
	s = strings.TrimSpace(s)
	if s == "" {
		s = def
	}
	if s == "" {
		l.Add(field, "form.required")
		return 0
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		l.Add(field, "plans.err.between", lo, hi)
		return 0
	}
	return n
}

// parseRates reads the rows of rates typed: empty rows are left out; a grade is a number
// from 1 to 12 or its Roman numeral, anything else a class; one target once.
func parseRates(l *problem.List, rows []RateForm) []Rate {
	var out []Rate
	seen := map[string]bool{}
	for i, row := range rows {
		target := component.CleanName(row.For)
		if target == "" && strings.TrimSpace(row.Amount) == "" {
			continue
		}
		forField, amountField := fmt.Sprintf("rate_for.%d", i), fmt.Sprintf("rate_amount.%d", i)
		if len(out) >= MaxRates {
			l.Add(forField, "plans.err.too_many_rates", MaxRates)
			break
		}
		r := Rate{Scope: ScopeClass, Target: target}
		if g, ok := gradeOnly(target); ok {
			r.Scope, r.Target = ScopeGrade, g
		}
		switch {
		case target == "":
			l.Add(forField, "form.required")
		case utf8.RuneCountInString(target) > 40:
			l.Add(forField, "form.too_long", 40)
		case seen[string(r.Scope)+"|"+foldClass(r.Target)]:
			l.Add(forField, "plans.err.rate_twice")
		}
		seen[string(r.Scope)+"|"+foldClass(r.Target)] = true
		var al problem.List
		r.Amount = component.ParseAmount(&al, row.Amount)
		for _, q := range al {
			*l = append(*l, q.In(amountField))
		}
		out = append(out, r)
	}
	return out
}

// planOf reads a stored plan.
func planOf(s store.FeePlan) Plan {
	p := Plan{ID: s.ID, Code: s.Code, Name: s.Name, ItemName: s.ItemName, AccountCode: s.AccountCode, Amount: s.Amount,
		Penalty: s.Penalty, Frequency: Frequency(s.Frequency), DueDay: s.DueDay, ExpiryDays: s.ExpiryDays,
		Instalments: max(s.Instalments, 1), CreatedBy: s.CreatedBy, CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt}
	p.From, _ = ParseMonth(s.FromMonth)
	p.To, _ = ParseMonth(s.ToMonth)
	for _, r := range s.Rates {
		p.Rates = append(p.Rates, Rate{Scope: Scope(r.Scope), Target: r.Target, Amount: r.Amount})
	}
	return p
}

// record is the plan as stored.
func (p Plan) record() store.FeePlan {
	s := store.FeePlan{ID: p.ID, Code: p.Code, Name: p.Name, ItemName: p.ItemName, AccountCode: p.AccountCode, Amount: p.Amount,
		Penalty: p.Penalty, Frequency: string(p.Frequency), FromMonth: p.From.String(), ToMonth: p.To.String(), DueDay: p.DueDay,
		ExpiryDays: p.ExpiryDays, Instalments: p.Instalments, CreatedBy: p.CreatedBy}
	for _, r := range p.Rates {
		s.Rates = append(s.Rates, store.FeePlanRate{Scope: string(r.Scope), Target: r.Target, Amount: r.Amount})
	}
	return s
}
