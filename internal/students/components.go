package students

import (
	"errors"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/i18n"
)

// Columns of the add-components form, as FieldErrors keys of a row.
const (
	ColName    = "name"
	ColAccount = "account_code"
	ColAmount  = "amount"
	ColPenalty = "penalty"
	ColDue     = "due"
	ColExpiry  = "expiry"
	ColActive  = "active"
	ColNotes   = "notes"
)

// Columns lists the row fields in form order.
var Columns = []string{ColName, ColAccount, ColAmount, ColPenalty, ColDue, ColExpiry, ColActive, ColNotes}

// ComponentRow is one row of the add-components form as typed.
type ComponentRow struct {
	Name, AccountCode, Amount, Penalty, Due, Expiry, Active, Notes string
}

// Get returns the row's value of a column (for forms built from Columns).
func (r ComponentRow) Get(col string) string {
	switch col {
	case ColName:
		return r.Name
	case ColAccount:
		return r.AccountCode
	case ColAmount:
		return r.Amount
	case ColPenalty:
		return r.Penalty
	case ColDue:
		return r.Due
	case ColExpiry:
		return r.Expiry
	case ColActive:
		return r.Active
	case ColNotes:
		return r.Notes
	}
	return ""
}

// Set stores v in the row's column col.
func (r *ComponentRow) Set(col, v string) {
	switch col {
	case ColName:
		r.Name = v
	case ColAccount:
		r.AccountCode = v
	case ColAmount:
		r.Amount = v
	case ColPenalty:
		r.Penalty = v
	case ColDue:
		r.Due = v
	case ColExpiry:
		r.Expiry = v
	case ColActive:
		r.Active = v
	case ColNotes:
		r.Notes = v
	}
}

// Empty reports a row the person left alone. The account code is a drop-down that always
// has a value, so it does not count.
func (r ComponentRow) Empty() bool {
	for _, v := range []string{r.Name, r.Amount, r.Penalty, r.Due, r.Expiry, r.Active, r.Notes} {
		if strings.TrimSpace(v) != "" {
			return false
		}
	}
	return true
}

// ComponentPlan is the outcome of checking the form: the components to send, the form
// row each came from, and the problems of each row (by row index).
type ComponentPlan struct {
	Inputs []billing.ComponentInput
	Rows   []int
	Errors map[int]FieldErrors
}

// Valid reports whether there is something to send and nothing is wrong.
func (p ComponentPlan) Valid() bool { return len(p.Errors) == 0 && len(p.Inputs) > 0 }

// ValidateComponents checks the rows for student nis with the service's rules before any
// call: name, account code (one of accounts), due and expiry are required; amount is a
// whole rupiah > 0; penalty a whole rupiah >= 0 (empty is 0); due <= expiry; active, when
// given, <= due. Empty rows are ignored.
func ValidateComponents(nis string, rows []ComponentRow, accounts []string) ComponentPlan {
	plan := ComponentPlan{Errors: map[int]FieldErrors{}}
	for i, r := range rows {
		if r.Empty() {
			continue
		}
		in, errs := validateRow(nis, r, accounts)
		if len(errs) > 0 {
			plan.Errors[i] = errs
			continue
		}
		plan.Inputs = append(plan.Inputs, in)
		plan.Rows = append(plan.Rows, i)
	}
	return plan
}

func validateRow(nis string, r ComponentRow, accounts []string) (billing.ComponentInput, FieldErrors) {
	errs := FieldErrors{}
	in := billing.ComponentInput{
		NIS:         nis,
		AccountCode: strings.TrimSpace(r.AccountCode),
		Name:        strings.Join(strings.Fields(r.Name), " "),
		Notes:       strings.TrimSpace(r.Notes),
	}
	switch {
	case in.Name == "":
		errs[ColName] = ProblemRequired
	case utf8.RuneCountInString(in.Name) > ComponentMaxLen[ColName]:
		errs[ColName] = ProblemTooLong
	}
	switch {
	case in.AccountCode == "":
		errs[ColAccount] = ProblemRequired
	case !slices.Contains(accounts, in.AccountCode):
		errs[ColAccount] = ProblemAccount
	}
	if utf8.RuneCountInString(in.Notes) > ComponentMaxLen[ColNotes] {
		errs[ColNotes] = ProblemTooLong
	}

	if strings.TrimSpace(r.Amount) == "" {
		errs[ColAmount] = ProblemRequired
	} else if v, p := rupiah(r.Amount); p != "" {
		errs[ColAmount] = p
	} else if v <= 0 {
		errs[ColAmount] = ProblemPositive
	} else {
		in.Amount = v
	}
	if strings.TrimSpace(r.Penalty) != "" {
		if v, p := rupiah(r.Penalty); p != "" {
			errs[ColPenalty] = p
		} else if v < 0 {
			errs[ColPenalty] = ProblemNegative
		} else {
			in.Penalty = v
		}
	}

	day := func(col, s string, required bool) time.Time {
		if strings.TrimSpace(s) == "" {
			if required {
				errs[col] = ProblemRequired
			}
			return time.Time{}
		}
		d, err := i18n.ParseDay(s)
		if err != nil {
			errs[col] = ProblemDate
		}
		return d
	}
	in.Due = day(ColDue, r.Due, true)
	in.Expiry = day(ColExpiry, r.Expiry, true)
	in.Active = day(ColActive, r.Active, false)
	if !in.Due.IsZero() && !in.Expiry.IsZero() && in.Due.After(in.Expiry) {
		errs[ColDue] = ProblemDueAfterExpiry
	}
	if !in.Active.IsZero() && !in.Due.IsZero() && in.Active.After(in.Due) {
		errs[ColActive] = ProblemActiveAfterDue
	}
	return in, errs
}

// rupiah reads an amount as staff type it (i18n.ParseRupiah); the problem is empty when
// it is whole rupiah up to i18n.MaxRupiah, the sign is the caller's rule.
func rupiah(s string) (int64, Problem) {
	v, err := i18n.ParseRupiah(s)
	switch {
	case errors.Is(err, i18n.ErrTooLarge):
		return 0, ProblemTooLarge
	case err != nil:
		return 0, ProblemAmount
	}
	return v, ""
}
